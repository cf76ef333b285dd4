/* insn_count_plugin: a QEMU TCG plugin that counts the guest instructions executed between two
 * marker functions, e.g. lite_bench's timed inference loop.
 *
 *   qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu max,sve=off,sme=off \
 *       -plugin build/qemu-plugin/liblite_insn_count.so[,out=counts.txt] \
 *       build/aarch64/runtime_arm/tools/lite_bench model.lite --warmup 0 --runs 3
 *
 * Why count instead of time: qemu's cost per guest instruction varies wildly by instruction (a
 * NEON FMA is many host instructions, a branch few), so emulated time says little about a
 * device; the executed instruction count is deterministic and, for the same ISA, tracks the
 * work a core does (it ignores cache misses and instruction latencies: it is a proxy, not time).
 *
 * Markers are found by symbol (the guest binary must keep its symbol table): entering
 * `begin` starts counting, entering `end` stops it, entering `iteration` counts one iteration.
 * Arguments (all optional): begin=SYM, end=SYM, iteration=SYM (defaults lite_bench_marker_*),
 * out=FILE (also write the result there), top=N (also the N functions that executed the most
 * instructions while counting). The result is one line, then with top=N one line per function:
 *
 *   lite_insn_count: instructions=N iterations=K begins=B ends=E
 *   lite_insn_symbol: instructions=N name=SYMBOL
 *
 * qemu-user knows the symbols of the main executable only: per-function counts need the runtime
 * linked in statically (lite_bench_static); code in shared libraries counts as "?".
 *
 * Instructions of every guest thread are counted while counting is on (a thread pool's workers
 * included). Counting is per translated block: a block's instructions are added when it starts,
 * which is exact for blocks that run to their end (all of them, barring faults).
 */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lite_qemu_plugin_api.h"

LITE_QEMU_PLUGIN_EXPORT int qemu_plugin_version = LITE_QEMU_PLUGIN_API_VERSION;

enum { MARKER_BEGIN, MARKER_END, MARKER_ITERATION, MARKER_COUNT };

typedef struct {
  char symbol[128];
  uint64_t entry; /* vaddr of the first block translated for the symbol: the function's entry */
  int entry_known;
} marker;

static marker g_markers[MARKER_COUNT];
static char g_out_path[512];

/* Shared by all vCPU threads: relaxed atomics (counts need no ordering, only no lost updates). */
static int g_active;
static uint64_t g_instructions, g_iterations, g_begins, g_ends;

/* Per-function counts (top=N): one entry per symbol name, created at translation time. */
typedef struct symbol_count {
  char* name;
  uint64_t instructions;
  struct symbol_count* next;
} symbol_count;

static int g_top;
static symbol_count* g_symbols;
static pthread_mutex_t g_symbols_lock = PTHREAD_MUTEX_INITIALIZER;

/* What one translated block adds when it runs (allocated per translation, kept until exit). */
typedef struct {
  uint64_t n_insns;
  symbol_count* symbol;
} block_info;

static symbol_count* symbol_entry(const char* name) {
  if (name == NULL) name = "?";
  pthread_mutex_lock(&g_symbols_lock);
  symbol_count* entry = g_symbols;
  while (entry != NULL && strcmp(entry->name, name) != 0) entry = entry->next;
  if (entry == NULL && (entry = calloc(1, sizeof(*entry))) != NULL) {
    entry->name = strdup(name);
    entry->next = g_symbols;
    g_symbols = entry;
  }
  pthread_mutex_unlock(&g_symbols_lock);
  return entry;
}

static void on_block(unsigned int vcpu_index, void* userdata) {
  (void)vcpu_index;
  if (!__atomic_load_n(&g_active, __ATOMIC_RELAXED)) return;
  const block_info* block = (const block_info*)userdata;
  __atomic_fetch_add(&g_instructions, block->n_insns, __ATOMIC_RELAXED);
  if (block->symbol != NULL) __atomic_fetch_add(&block->symbol->instructions, block->n_insns, __ATOMIC_RELAXED);
}

static void on_marker(unsigned int vcpu_index, void* userdata) {
  (void)vcpu_index;
  switch ((int)(intptr_t)userdata) {
    case MARKER_BEGIN:
      __atomic_fetch_add(&g_begins, 1, __ATOMIC_RELAXED);
      __atomic_store_n(&g_active, 1, __ATOMIC_RELAXED);
      break;
    case MARKER_END:
      __atomic_fetch_add(&g_ends, 1, __ATOMIC_RELAXED);
      __atomic_store_n(&g_active, 0, __ATOMIC_RELAXED);
      break;
    default:
      if (__atomic_load_n(&g_active, __ATOMIC_RELAXED)) __atomic_fetch_add(&g_iterations, 1, __ATOMIC_RELAXED);
      break;
  }
}

/* Which marker a block starts, or -1. Execution enters a function at its entry first, so the first
 * block translated for a marker symbol fixes its entry; later blocks inside it are not entries. */
static int marker_of_block(struct qemu_plugin_insn* first) {
  const char* symbol = qemu_plugin_insn_symbol(first);
  if (symbol == NULL) return -1;
  const uint64_t vaddr = qemu_plugin_insn_vaddr(first);
  for (int m = 0; m < MARKER_COUNT; ++m) {
    marker* mk = &g_markers[m];
    if (strcmp(symbol, mk->symbol) != 0) continue;
    if (!mk->entry_known) {
      mk->entry = vaddr;
      mk->entry_known = 1;
    }
    return mk->entry == vaddr ? m : -1;
  }
  return -1;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  const size_t n = qemu_plugin_tb_n_insns(tb);
  if (n == 0) return;
  struct qemu_plugin_insn* first = qemu_plugin_tb_get_insn(tb, 0);
  block_info* block = calloc(1, sizeof(*block));
  if (block == NULL) return;
  block->n_insns = n;
  block->symbol = g_top > 0 ? symbol_entry(qemu_plugin_insn_symbol(first)) : NULL;
  qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS, block);
  const int m = marker_of_block(first);
  if (m >= 0) qemu_plugin_register_vcpu_insn_exec_cb(first, on_marker, QEMU_PLUGIN_CB_NO_REGS, (void*)(intptr_t)m);
}

static int by_instructions_desc(const void* a, const void* b) {
  const uint64_t x = (*(symbol_count* const*)a)->instructions, y = (*(symbol_count* const*)b)->instructions;
  return (x < y) - (x > y);
}

/* Writes `line` to qemu's log and to the out= file (opened by on_exit). */
static void emit(FILE* out, const char* line) {
  qemu_plugin_outs(line);
  if (out != NULL) fputs(line, out);
}

static void on_exit(qemu_plugin_id_t id, void* userdata) {
  (void)id, (void)userdata;
  FILE* out = g_out_path[0] != '\0' ? fopen(g_out_path, "w") : NULL;
  char line[512];
  snprintf(line, sizeof(line), "lite_insn_count: instructions=%llu iterations=%llu begins=%llu ends=%llu\n",
           (unsigned long long)g_instructions, (unsigned long long)g_iterations, (unsigned long long)g_begins,
           (unsigned long long)g_ends);
  emit(out, line);
  size_t n = 0;
  for (symbol_count* s = g_symbols; s != NULL; s = s->next) n++;
  symbol_count** sorted = n > 0 ? malloc(n * sizeof(*sorted)) : NULL;
  if (sorted != NULL) {
    n = 0;
    for (symbol_count* s = g_symbols; s != NULL; s = s->next) sorted[n++] = s;
    qsort(sorted, n, sizeof(*sorted), by_instructions_desc);
    for (size_t i = 0; i < n && i < (size_t)g_top && sorted[i]->instructions > 0; ++i) {
      snprintf(line, sizeof(line), "lite_insn_symbol: instructions=%llu name=%s\n",
               (unsigned long long)sorted[i]->instructions, sorted[i]->name);
      emit(out, line);
    }
    free(sorted);
  }
  if (out != NULL) fclose(out);
}

/* Copies "key=value"'s value into dst when arg starts with key=. Returns 1 when it matched. */
static int take_arg(const char* arg, const char* key, char* dst, size_t dst_size) {
  const size_t k = strlen(key);
  if (strncmp(arg, key, k) != 0 || arg[k] != '=') return 0;
  snprintf(dst, dst_size, "%s", arg + k + 1);
  return 1;
}

LITE_QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc, char** argv) {
  (void)info;
  snprintf(g_markers[MARKER_BEGIN].symbol, sizeof(g_markers[0].symbol), "lite_bench_marker_begin");
  snprintf(g_markers[MARKER_END].symbol, sizeof(g_markers[0].symbol), "lite_bench_marker_end");
  snprintf(g_markers[MARKER_ITERATION].symbol, sizeof(g_markers[0].symbol), "lite_bench_marker_iteration");
  for (int i = 0; i < argc; ++i) {
    const char* arg = argv[i];
    char top[32];
    if (take_arg(arg, "top", top, sizeof(top))) {
      g_top = atoi(top);
      continue;
    }
    if (take_arg(arg, "begin", g_markers[MARKER_BEGIN].symbol, sizeof(g_markers[0].symbol)) ||
        take_arg(arg, "end", g_markers[MARKER_END].symbol, sizeof(g_markers[0].symbol)) ||
        take_arg(arg, "iteration", g_markers[MARKER_ITERATION].symbol, sizeof(g_markers[0].symbol)) ||
        take_arg(arg, "out", g_out_path, sizeof(g_out_path)))
      continue;
    fprintf(stderr, "insn_count_plugin: unknown argument '%s' (begin=, end=, iteration=, out=, top=)\n", arg);
    return -1;
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, on_exit, NULL);
  return 0;
}
