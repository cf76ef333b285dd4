#include "model.h"

#include <cstring>

#include "model_verifier.h"
#include "schema_version.h"

namespace lite {

namespace {

// Bounds for the flatbuffers Verifier: deep enough for the schema (Model > Graph > Operator >
// options > vector), small enough that a hostile file cannot recurse or loop for long.
constexpr flatbuffers::uoffset_t kMaxDepth = 16;
constexpr flatbuffers::uoffset_t kMaxTables = 1u << 24;

// Non-null address for constants with zero elements.
alignas(64) const uint8_t kEmptyConstant[64] = {};

}  // namespace

Status Model::load_file(const char* path, const OpRegistry& registry, std::unique_ptr<Model>* out,
                        ErrorSink* error) {
  if (path == nullptr) return error->set(Status::kInvalidArgument, "path is NULL");
  std::unique_ptr<Model> model(new (std::nothrow) Model());
  if (model == nullptr) return error->set(Status::kOutOfMemory, "out of memory");
  model->registry_ = &registry;
  Status s = model->bytes_.map_file(path, error);
  if (s != Status::kOk) return s;
  s = model->finish_load(error);
  if (s != Status::kOk) return s;
  *out = std::move(model);
  return Status::kOk;
}

Status Model::load_memory(const void* data, size_t size, bool copy, const OpRegistry& registry,
                          std::unique_ptr<Model>* out, ErrorSink* error) {
  if (data == nullptr || size == 0) return error->set(Status::kInvalidArgument, "model data is NULL or empty");
  std::unique_ptr<Model> model(new (std::nothrow) Model());
  if (model == nullptr) return error->set(Status::kOutOfMemory, "out of memory");
  model->registry_ = &registry;
  // Flatbuffer scalars are read in place: data that is not 8-byte aligned is copied.
  if (copy || reinterpret_cast<uintptr_t>(data) % 8 != 0) {
    Status s = model->bytes_.copy_from(data, size, error);
    if (s != Status::kOk) return s;
  } else {
    model->bytes_.borrow(data, size);
  }
  Status s = model->finish_load(error);
  if (s != Status::kOk) return s;
  *out = std::move(model);
  return Status::kOk;
}

Status Model::finish_load(ErrorSink* error) {
  const uint8_t* data = bytes_.data();
  size_t size = bytes_.size();
  if (size < 8 || size >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return error->set(Status::kInvalidModel, "not a .lite model: %zu bytes", size);
  if (!flatbuffers::BufferHasIdentifier(data, lite_fb::ModelIdentifier()))
    return error->set(Status::kInvalidModel, "not a .lite model: the file identifier is not \"%s\"",
                      lite_fb::ModelIdentifier());
  uint32_t version = 0;
  const uint32_t supported = static_cast<uint32_t>(lite_fb::SchemaVersion::CURRENT);
  if (peek_schema_version(data, size, &version) && version > supported)
    return error->set(Status::kVersionMismatch,
                      "model schema version %u is newer than this runtime supports (%u): update the runtime",
                      version, supported);
  flatbuffers::Verifier::Options options;
  options.max_depth = kMaxDepth;
  options.max_tables = kMaxTables;
  flatbuffers::Verifier verifier(data, size, options);
  if (!lite_fb::VerifyModelBuffer(verifier))
    return error->set(Status::kInvalidModel, "the model file is corrupt (flatbuffer verification failed)");
  fb_ = lite_fb::GetModel(data);
  if (fb_->schema_version() == 0)
    return error->set(Status::kInvalidModel, "the model has no schema_version (not written by lite_converter?)");
  Status s = verify_model_semantics(*fb_, *registry_, error);
  if (s != Status::kOk) return s;

  // Constant data: in place when 64-byte aligned, else an aligned copy (a buffer shared by several
  // tensors, in any subgraph, is copied once).
  const int num_graphs = 1 + (fb_->subgraphs() != nullptr ? static_cast<int>(fb_->subgraphs()->size()) : 0);
  constant_data_.resize(static_cast<size_t>(num_graphs));
  std::vector<const void*> buffer_data(fb_->buffers() != nullptr ? fb_->buffers()->size() : 0, nullptr);
  for (int s = 0; s < num_graphs; ++s) {
    const lite_fb::Graph* g = graph(s);
    int n = g->tensors() != nullptr ? static_cast<int>(g->tensors()->size()) : 0;
    std::vector<const void*>& constants = constant_data_[static_cast<size_t>(s)];
    constants.assign(static_cast<size_t>(n), nullptr);
    for (int i = 0; i < n; ++i) {
      uint32_t b = g->tensors()->Get(static_cast<flatbuffers::uoffset_t>(i))->buffer();
      if (b == 0) continue;
      if (buffer_data[b] == nullptr) {
        const flatbuffers::Vector<uint8_t>* bytes = fb_->buffers()->Get(b)->data();
        if (bytes == nullptr || bytes->size() == 0) {
          buffer_data[b] = kEmptyConstant;
        } else if (reinterpret_cast<uintptr_t>(bytes->data()) % kTensorAlignment == 0) {
          buffer_data[b] = bytes->data();
        } else {
          AlignedBuffer copy;
          if (!copy.allocate(bytes->size(), false))
            return error->set(Status::kOutOfMemory, "cannot allocate %u bytes to align buffer %u", bytes->size(), b);
          std::memcpy(copy.data(), bytes->data(), bytes->size());
          buffer_data[b] = copy.data();
          realigned_bytes_ += bytes->size();
          realigned_.push_back(std::move(copy));
        }
      }
      constants[static_cast<size_t>(i)] = buffer_data[b];
    }
  }
  return Status::kOk;
}

}  // namespace lite
