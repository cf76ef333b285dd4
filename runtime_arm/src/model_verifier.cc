#include "model_verifier.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "checked_math.h"
#include "op_options_table.h"

namespace lite {

namespace {

// A single constant or activation tensor larger than this is refused at load.
constexpr size_t kMaxTensorBytes = size_t{1} << 31;

bool aligned8(const void* p) { return reinterpret_cast<uintptr_t>(p) % 8 == 0; }

const char* name_of(const lite_fb::Tensor* t) { return t->name() != nullptr ? t->name()->c_str() : ""; }
const char* name_of(const lite_fb::Operator* op) { return op->name() != nullptr ? op->name()->c_str() : ""; }

Status verify_quantization(const lite_fb::Tensor* t, int index, int rank, ErrorSink* error) {
  const lite_fb::Quantization* q = t->quantization();
  if (q == nullptr) return Status::kOk;
  const char* name = name_of(t);
  size_t n = q->scale() != nullptr ? q->scale()->size() : 0;
  if (n == 0)
    return error->set(Status::kInvalidModel, "tensor %d '%s': quantization without scales", index, name);
  if (q->zero_point() != nullptr && !aligned8(q->zero_point()->data()))
    return error->set(Status::kInvalidModel, "tensor %d '%s': the zero_point vector is not 8-byte aligned", index,
                      name);
  if (q->zero_point() != nullptr && q->zero_point()->size() != n)
    return error->set(Status::kInvalidModel, "tensor %d '%s': %zu quantization scales but %u zero points", index,
                      name, n, q->zero_point()->size());
  for (size_t i = 0; i < n; ++i) {
    float s = q->scale()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (!std::isfinite(s) || s < 0.0f)
      return error->set(Status::kInvalidModel, "tensor %d '%s': quantization scale %g is not a finite value >= 0",
                        index, name, static_cast<double>(s));
  }
  int axis = q->axis();
  if (axis == -1) {
    if (n != 1)
      return error->set(Status::kInvalidModel, "tensor %d '%s': per-tensor quantization with %zu scales", index,
                        name, n);
    return Status::kOk;
  }
  if (axis < 0 || axis >= rank)
    return error->set(Status::kInvalidModel, "tensor %d '%s': quantization axis %d out of range for rank %d",
                      index, name, axis, rank);
  int64_t dim = t->shape()->Get(static_cast<flatbuffers::uoffset_t>(axis));
  if (dim >= 0 && static_cast<uint64_t>(dim) != n)
    return error->set(Status::kInvalidModel,
                      "tensor %d '%s': %zu quantization scales for axis %d of size %lld", index, name, n, axis,
                      static_cast<long long>(dim));
  return Status::kOk;
}

Status verify_tensor(const lite_fb::Model& model, const lite_fb::Graph* graph, int index, ErrorSink* error) {
  const lite_fb::Tensor* t = graph->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index));
  const char* name = name_of(t);
  size_t elem = dtype_size(t->dtype());
  if (elem == 0)
    return error->set(Status::kInvalidModel, "tensor %d '%s': unknown dtype %d", index, name,
                      static_cast<int>(t->dtype()));
  int rank = t->shape() != nullptr ? static_cast<int>(t->shape()->size()) : 0;
  if (t->shape() != nullptr && t->shape()->size() > static_cast<flatbuffers::uoffset_t>(kMaxRank))
    return error->set(Status::kInvalidModel, "tensor %d '%s': rank %u exceeds the maximum rank %d", index, name,
                      t->shape()->size(), kMaxRank);
  // The flatbuffers 2.0.8 Verifier checks only the 4-byte alignment of a vector's length, not the
  // 8-byte alignment its int64 elements need (reads would be undefined, and fault on armv7).
  if (t->shape() != nullptr && !aligned8(t->shape()->data()))
    return error->set(Status::kInvalidModel, "tensor %d '%s': the shape vector is not 8-byte aligned", index, name);
  int64_t dims[kMaxRank] = {};
  bool is_static = true;
  for (int i = 0; i < rank; ++i) {
    dims[i] = t->shape()->Get(static_cast<flatbuffers::uoffset_t>(i));
    if (dims[i] < -1)
      return error->set(Status::kInvalidModel, "tensor %d '%s': dim %d is %lld (dims are >= 0, or -1 = dynamic)",
                        index, name, i, static_cast<long long>(dims[i]));
    if (dims[i] == -1) is_static = false;
  }
  Status s = verify_quantization(t, index, rank, error);
  if (s != Status::kOk) return s;
#ifndef LITE_NO_SEQUENCES  // without the sequence ops no op reads a value as a sequence
  // A sequence / optional (sequence_value.h) is an activation whose view is one dynamic dim.
  if (static_cast<int>(t->kind()) < 0 || t->kind() > lite_fb::ValueKind::MAX)
    return error->set(Status::kInvalidModel, "tensor %d '%s': unknown value kind %d", index, name,
                      static_cast<int>(t->kind()));
  if (t->kind() != lite_fb::ValueKind::TENSOR && (t->buffer() != 0 || t->variable() || rank != 1 || dims[0] != -1))
    return error->set(Status::kInvalidModel, "tensor %d '%s': a %s value must be an activation of shape [-1]", index,
                      name, lite_fb::EnumNameValueKind(t->kind()));
#endif

  uint32_t buffer = t->buffer();
  uint32_t num_buffers = model.buffers() != nullptr ? model.buffers()->size() : 0;
  if (buffer == 0 && t->variable())
    return error->set(Status::kInvalidModel, "tensor %d '%s': a variable needs a buffer (its initial value)", index,
                      name);
  if (buffer == 0) return Status::kOk;
  if (buffer >= num_buffers)
    return error->set(Status::kInvalidModel, "tensor %d '%s': buffer index %u out of range (%u buffers)", index,
                      name, buffer, num_buffers);
  if (!is_static)
    return error->set(Status::kInvalidModel, "tensor %d '%s': a constant must have a static shape", index, name);
  size_t count, bytes;
  if (!checked_num_elements(dims, rank, kMaxTensorBytes, &count) || !checked_mul(count, elem, &bytes) ||
      bytes > kMaxTensorBytes)
    return error->set(Status::kInvalidModel, "tensor %d '%s': constant size overflows", index, name);
  const lite_fb::Buffer* b = model.buffers()->Get(buffer);
  size_t have = b != nullptr && b->data() != nullptr ? b->data()->size() : 0;
  if (have != bytes)
    return error->set(Status::kInvalidModel, "tensor %d '%s': constant buffer %u has %zu bytes, shape and dtype %s need %zu",
                      index, name, buffer, have, dtype_name(t->dtype()), bytes);
  return Status::kOk;
}

// Tensor index lists of the graph and of each op.
Status verify_index(int64_t value, int num_tensors, bool allow_absent, const char* what, ErrorSink* error) {
  if ((allow_absent && value == -1) || (value >= 0 && value < num_tensors)) return Status::kOk;
  return error->set(Status::kInvalidModel, "%s: tensor index %lld out of range (%d tensors)", what,
                    static_cast<long long>(value), num_tensors);
}

struct UnsupportedOp {
  int opcode;
  int count;
  std::string first_node;
};

Status report_unsupported(const std::vector<UnsupportedOp>& ops, ErrorSink* error) {
  std::string message = "the model uses " + std::to_string(ops.size()) + " op code" + (ops.size() > 1 ? "s" : "") +
                        " this runtime does not support: ";
  for (size_t i = 0; i < ops.size(); ++i) {
    const UnsupportedOp& u = ops[i];
    const char* name = lite_fb::EnumNameOpCode(static_cast<lite_fb::OpCode>(u.opcode));
    if (i > 0) message += ", ";
    if (name != nullptr && name[0] != '\0')
      message += name;
    else
      message += "opcode " + std::to_string(u.opcode) + " (unknown to this runtime: newer file?)";
    std::string node = u.first_node.size() > 40 ? u.first_node.substr(0, 40) + "..." : u.first_node;
    message += " (node '" + node + "'";
    if (u.count > 1) message += " and " + std::to_string(u.count - 1) + " more";
    message += ")";
  }
  return error->set(Status::kUnsupported, "%s", message.c_str());
}

// One graph (the main graph or a body): tensors, topological order, options, registered op codes.
// `unsupported` collects the op codes without a kernel across all graphs (reported once, together).
Status verify_graph(const lite_fb::Model& model, const lite_fb::Graph* graph, const OpRegistry& registry,
                    std::vector<UnsupportedOp>& unsupported, ErrorSink* error) {
  if (graph->tensors() != nullptr && graph->tensors()->size() > (1u << 24))
    return error->set(Status::kInvalidModel, "the graph has %u tensors (at most 16M)", graph->tensors()->size());
  int num_tensors = graph->tensors() != nullptr ? static_cast<int>(graph->tensors()->size()) : 0;
  for (int i = 0; i < num_tensors; ++i) {
    Status s = verify_tensor(model, graph, i, error);
    if (s != Status::kOk) return s;
  }
  auto is_constant = [&](int index) {
    return graph->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index))->buffer() != 0;
  };

  // available[i]: tensor i has a value before the op being checked runs.
  std::vector<char> available(static_cast<size_t>(num_tensors), 0);
  std::vector<char> is_graph_input(static_cast<size_t>(num_tensors), 0);
  for (int i = 0; i < num_tensors; ++i) available[static_cast<size_t>(i)] = is_constant(i) ? 1 : 0;
  if (graph->inputs() != nullptr) {
    for (int32_t index : *graph->inputs()) {
      Status s = verify_index(index, num_tensors, false, "graph input", error);
      if (s != Status::kOk) return s;
      const char* name = name_of(graph->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index)));
      if (is_constant(index))
        return error->set(Status::kInvalidModel, "graph input '%s' (tensor %d) is a constant", name, index);
      if (is_graph_input[static_cast<size_t>(index)])
        return error->set(Status::kInvalidModel, "tensor %d '%s' is listed twice as a graph input", index, name);
      is_graph_input[static_cast<size_t>(index)] = 1;
      available[static_cast<size_t>(index)] = 1;
    }
  }

  int num_ops = graph->operators() != nullptr ? static_cast<int>(graph->operators()->size()) : 0;
  for (int k = 0; k < num_ops; ++k) {
    const lite_fb::Operator* op = graph->operators()->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (op == nullptr) return error->set(Status::kInvalidModel, "operator %d is missing", k);
    const char* node = name_of(op);
    char what[160];
    std::snprintf(what, sizeof(what), "op %d '%s' (%s)", k, node, opcode_name(op->opcode()));
    if (op->inputs() != nullptr) {
      for (int32_t index : *op->inputs()) {
        Status s = verify_index(index, num_tensors, true, what, error);
        if (s != Status::kOk) return s;
        if (index >= 0 && !available[static_cast<size_t>(index)])
          return error->set(Status::kInvalidModel,
                            "%s reads tensor %d '%s' before any op writes it (ops must be in topological order)",
                            what, index, name_of(graph->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index))));
      }
    }
    if (op->opcode() == lite_fb::OpCode::ASSIGN_VARIABLE) {
      // the one op without outputs: it writes its input 0, which must be a variable
      const int32_t target = op->inputs() != nullptr && op->inputs()->size() == 2 ? op->inputs()->Get(0) : -1;
      if (target < 0 || !graph->tensors()->Get(static_cast<flatbuffers::uoffset_t>(target))->variable())
        return error->set(Status::kInvalidModel, "%s must have 2 inputs, the first a variable tensor", what);
      if (op->outputs() != nullptr && op->outputs()->size() != 0)
        return error->set(Status::kInvalidModel, "%s has outputs (it writes its variable input)", what);
    } else if (op->outputs() == nullptr || op->outputs()->size() == 0) {
      return error->set(Status::kInvalidModel, "%s has no outputs", what);
    }
    const flatbuffers::Vector<int32_t>* outputs = op->outputs();
    for (flatbuffers::uoffset_t o = 0; outputs != nullptr && o < outputs->size(); ++o) {
      const int32_t index = outputs->Get(o);
      Status s = verify_index(index, num_tensors, false, what, error);
      if (s != Status::kOk) return s;
      const char* name = name_of(graph->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index)));
      if (is_constant(index)) return error->set(Status::kInvalidModel, "%s writes constant tensor %d '%s'", what, index, name);
      if (is_graph_input[static_cast<size_t>(index)])
        return error->set(Status::kInvalidModel, "%s writes graph input %d '%s'", what, index, name);
      if (available[static_cast<size_t>(index)])
        return error->set(Status::kInvalidModel, "%s writes tensor %d '%s', which another op already writes", what,
                          index, name);
      available[static_cast<size_t>(index)] = 1;
    }
#ifndef LITE_NO_SEQUENCES
    // Only control flow, the sequence ops and IDENTITY (a byte copy: a body passing a value through)
    // take or make values of a non-tensor kind.
    const bool any_kind = (op->opcode() >= lite_fb::OpCode::IF && op->opcode() <= lite_fb::OpCode::SCAN) ||
                          op->opcode() == lite_fb::OpCode::IDENTITY ||
                          (op->opcode() >= lite_fb::OpCode::SEQUENCE_CONSTRUCT &&
                           op->opcode() <= lite_fb::OpCode::OPTIONAL_GET_ELEMENT);
    for (int side = 0; !any_kind && side < 2; ++side) {
      const flatbuffers::Vector<int32_t>* list = side == 0 ? op->inputs() : outputs;
      for (flatbuffers::uoffset_t i = 0; list != nullptr && i < list->size(); ++i) {
        const lite_fb::Tensor* t = list->Get(i) >= 0 ? graph->tensors()->Get(static_cast<flatbuffers::uoffset_t>(list->Get(i)))
                                                     : nullptr;
        if (t != nullptr && t->kind() != lite_fb::ValueKind::TENSOR)
          return error->set(Status::kInvalidModel, "%s %s '%s', a %s value; the op takes tensors", what,
                            side == 0 ? "reads" : "writes", name_of(t), lite_fb::EnumNameValueKind(t->kind()));
      }
    }
    // IDENTITY copies bytes: a tensor and a sequence / optional buffer must not meet there
    if (op->opcode() == lite_fb::OpCode::IDENTITY && op->inputs() != nullptr && op->inputs()->size() > 0 &&
        outputs != nullptr && outputs->size() > 0 && op->inputs()->Get(0) >= 0 && outputs->Get(0) >= 0) {
      const lite_fb::Tensor* in = graph->tensors()->Get(static_cast<flatbuffers::uoffset_t>(op->inputs()->Get(0)));
      const lite_fb::Tensor* out = graph->tensors()->Get(static_cast<flatbuffers::uoffset_t>(outputs->Get(0)));
      if ((in->kind() == lite_fb::ValueKind::TENSOR) != (out->kind() == lite_fb::ValueKind::TENSOR))
        return error->set(Status::kInvalidModel, "%s reads '%s', a %s value, and writes '%s', a %s value", what,
                          name_of(in), lite_fb::EnumNameValueKind(in->kind()), name_of(out),
                          lite_fb::EnumNameValueKind(out->kind()));
    }
#endif
    lite_fb::OpOptions expected = expected_options(op->opcode());
    if (expected != lite_fb::OpOptions::NONE && op->options_type() != lite_fb::OpOptions::NONE &&
        op->options_type() != expected)
      return error->set(Status::kInvalidModel, "%s carries %s, expected %s", what,
                        lite_fb::EnumNameOpOptions(op->options_type()), lite_fb::EnumNameOpOptions(expected));
    if (registry.find(op->opcode()) == nullptr) {
      int code = static_cast<int>(op->opcode());
      bool seen = false;
      for (UnsupportedOp& u : unsupported) {
        if (u.opcode == code) {
          ++u.count;
          seen = true;
        }
      }
      if (!seen) unsupported.push_back({code, 1, node});
    }
  }

  if (graph->value_inputs() != nullptr) {
    const int num_inputs = graph->inputs() != nullptr ? static_cast<int>(graph->inputs()->size()) : 0;
    for (int32_t position : *graph->value_inputs())
      if (position < 0 || position >= num_inputs)
        return error->set(Status::kInvalidModel, "value input position %d out of range (%d graph inputs)", position,
                          num_inputs);
  }
  if (graph->outputs() == nullptr || graph->outputs()->size() == 0)
    return error->set(Status::kInvalidModel, "the graph has no outputs");
  for (int32_t index : *graph->outputs()) {
    Status s = verify_index(index, num_tensors, false, "graph output", error);
    if (s != Status::kOk) return s;
    if (!available[static_cast<size_t>(index)])
      return error->set(Status::kInvalidModel, "graph output %d '%s' is never written", index,
                        name_of(graph->tensors()->Get(static_cast<flatbuffers::uoffset_t>(index))));
  }
  return Status::kOk;
}

int graph_inputs(const lite_fb::Graph* g) { return g->inputs() != nullptr ? static_cast<int>(g->inputs()->size()) : 0; }
int graph_outputs(const lite_fb::Graph* g) {
  return g->outputs() != nullptr ? static_cast<int>(g->outputs()->size()) : 0;
}
int op_inputs(const lite_fb::Operator* op) { return op->inputs() != nullptr ? static_cast<int>(op->inputs()->size()) : 0; }
int op_outputs(const lite_fb::Operator* op) { return static_cast<int>(op->outputs()->size()); }

// A control-flow op's subgraph references and arity (schema: IfOptions, LoopOptions, ScanOptions).
// `bodies` receives the subgraph indices it runs.
Status verify_control_flow(const lite_fb::Model& model, const lite_fb::Operator* op, const char* what,
                           std::vector<int>* bodies, ErrorSink* error) {
  const int num_graphs = 1 + (model.subgraphs() != nullptr ? static_cast<int>(model.subgraphs()->size()) : 0);
  auto body = [&](int s, const char* field, const lite_fb::Graph** out) {
    if (s < 1 || s >= num_graphs)
      return error->set(Status::kInvalidModel, "%s: %s %d out of range (subgraphs 1..%d; 0 is the main graph)",
                        what, field, s, num_graphs - 1);
    *out = model.subgraphs()->Get(static_cast<flatbuffers::uoffset_t>(s - 1));
    bodies->push_back(s);
    return Status::kOk;
  };
  auto arity = [&](const lite_fb::Graph* g, int s, int inputs, int outputs) {
    if (graph_inputs(g) == inputs && graph_outputs(g) == outputs) return Status::kOk;
    return error->set(Status::kInvalidModel, "%s: subgraph %d has %d inputs and %d outputs, the op needs %d and %d",
                      what, s, graph_inputs(g), graph_outputs(g), inputs, outputs);
  };
  const int n_in = op_inputs(op), n_out = op_outputs(op);
  const lite_fb::Graph* g = nullptr;
  Status st = Status::kOk;
  switch (op->opcode()) {
    case lite_fb::OpCode::IF: {
      const lite_fb::IfOptions* o = op->options_as_IfOptions();
      if (o == nullptr) return error->set(Status::kInvalidModel, "%s has no IfOptions", what);
      if (n_in < 1) return error->set(Status::kInvalidModel, "%s has no condition input", what);
      if ((st = body(o->then_subgraph(), "then_subgraph", &g)) != Status::kOk) return st;
      if ((st = arity(g, o->then_subgraph(), n_in - 1, n_out)) != Status::kOk) return st;
      if ((st = body(o->else_subgraph(), "else_subgraph", &g)) != Status::kOk) return st;
      return arity(g, o->else_subgraph(), n_in - 1, n_out);
    }
    case lite_fb::OpCode::LOOP: {
      const lite_fb::LoopOptions* o = op->options_as_LoopOptions();
      if (o == nullptr) return error->set(Status::kInvalidModel, "%s has no LoopOptions", what);
      const int carried = o->num_carried();
      if (carried < 0 || carried > n_out || 2 + carried > n_in)
        return error->set(Status::kInvalidModel, "%s: num_carried %d does not fit %d inputs and %d outputs", what,
                          carried, n_in, n_out);
      if ((st = body(o->body_subgraph(), "body_subgraph", &g)) != Status::kOk) return st;
      return arity(g, o->body_subgraph(), n_in, 1 + n_out);
    }
    case lite_fb::OpCode::SCAN: {
      const lite_fb::ScanOptions* o = op->options_as_ScanOptions();
      if (o == nullptr) return error->set(Status::kInvalidModel, "%s has no ScanOptions", what);
      const int state = o->num_state(), scans = o->num_scan_inputs();
      if (state < 0 || scans < 1 || state > n_out || state + scans > n_in)
        return error->set(Status::kInvalidModel,
                          "%s: num_state %d and num_scan_inputs %d do not fit %d inputs and %d outputs", what, state,
                          scans, n_in, n_out);
      auto check_list = [&](const flatbuffers::Vector<int32_t>* v, int want, const char* field, int limit) {
        if (v == nullptr || v->size() == 0) return Status::kOk;
        if (static_cast<int>(v->size()) != want)
          return error->set(Status::kInvalidModel, "%s: %s has %u entries, expected %d", what, field, v->size(), want);
        for (int32_t x : *v)
          if (x < 0 || x >= limit)
            return error->set(Status::kInvalidModel, "%s: %s holds %d (expected 0..%d)", what, field, x, limit - 1);
        return Status::kOk;
      };
      if ((st = check_list(o->scan_input_axes(), scans, "scan_input_axes", kMaxRank)) != Status::kOk ||
          (st = check_list(o->scan_input_directions(), scans, "scan_input_directions", 2)) != Status::kOk ||
          (st = check_list(o->scan_output_axes(), n_out - state, "scan_output_axes", kMaxRank)) != Status::kOk ||
          (st = check_list(o->scan_output_directions(), n_out - state, "scan_output_directions", 2)) != Status::kOk)
        return st;
      if ((st = body(o->body_subgraph(), "body_subgraph", &g)) != Status::kOk) return st;
      return arity(g, o->body_subgraph(), n_in, n_out);
    }
    default:
      return Status::kOk;
  }
}

}  // namespace

Status verify_model_semantics(const lite_fb::Model& model, const OpRegistry& registry, ErrorSink* error) {
  if (model.graph() == nullptr) return error->set(Status::kInvalidModel, "the model has no graph");
  if (model.buffers() != nullptr && model.buffers()->size() > 0) {
    const lite_fb::Buffer* b0 = model.buffers()->Get(0);
    if (b0 != nullptr && b0->data() != nullptr && b0->data()->size() != 0)
      return error->set(Status::kInvalidModel, "buffer 0 must be empty (it means 'no constant data')");
  }
  const int num_subgraphs = model.subgraphs() != nullptr ? static_cast<int>(model.subgraphs()->size()) : 0;
  if (num_subgraphs > 4096)
    return error->set(Status::kInvalidModel, "the model has %d subgraphs (at most 4096)", num_subgraphs);
  std::vector<UnsupportedOp> unsupported;
  // calls[s]: the subgraphs graph s runs through its control-flow ops.
  std::vector<std::vector<int>> calls(static_cast<size_t>(1 + num_subgraphs));
  for (int s = 0; s <= num_subgraphs; ++s) {
    const lite_fb::Graph* graph =
        s == 0 ? model.graph() : model.subgraphs()->Get(static_cast<flatbuffers::uoffset_t>(s - 1));
    if (graph == nullptr) return error->set(Status::kInvalidModel, "subgraph %d is missing", s);
    Status st = verify_graph(model, graph, registry, unsupported, error);
    if (st != Status::kOk) {
      if (s > 0) {
        std::string message = "subgraph " + std::to_string(s) + ": " + error->message();
        error->set(st, "%s", message.c_str());
      }
      return st;
    }
    int num_ops = graph->operators() != nullptr ? static_cast<int>(graph->operators()->size()) : 0;
    for (int k = 0; k < num_ops; ++k) {
      const lite_fb::Operator* op = graph->operators()->Get(static_cast<flatbuffers::uoffset_t>(k));
      char what[200];
      std::snprintf(what, sizeof(what), "subgraph %d op %d '%s' (%s)", s, k, name_of(op), opcode_name(op->opcode()));
      st = verify_control_flow(model, op, what, &calls[static_cast<size_t>(s)], error);
      if (st != Status::kOk) return st;
    }
  }
  // No subgraph may reach itself: a depth-first walk from the main graph (0 unseen, 1 on the path,
  // 2 done); a body no op runs is never run and needs no check.
  std::vector<char> state(calls.size(), 0);
  std::vector<std::pair<int, size_t>> stack = {{0, 0}};
  state[0] = 1;
  while (!stack.empty()) {
    const int s = stack.back().first;
    const std::vector<int>& callees = calls[static_cast<size_t>(s)];
    if (stack.back().second == callees.size()) {
      state[static_cast<size_t>(s)] = 2;
      stack.pop_back();
      continue;
    }
    const int callee = callees[stack.back().second++];
    if (state[static_cast<size_t>(callee)] == 1)
      return error->set(Status::kInvalidModel,
                        "subgraph %d runs itself through control-flow ops (subgraph %d calls it again): recursion "
                        "is refused",
                        callee, s);
    if (state[static_cast<size_t>(callee)] == 0) {
      state[static_cast<size_t>(callee)] = 1;
      stack.push_back({callee, 0});
    }
  }
  if (!unsupported.empty()) return report_unsupported(unsupported, error);
  return Status::kOk;
}

}  // namespace lite
