/* The small part of QEMU's TCG plugin API (API version 1, QEMU 7.x) that insn_count_plugin.c uses,
 * declared from the documented API (docs/devel/tcg-plugins.rst, "Plugin API"): Debian ships no
 * qemu-plugin.h. The plugin is a host shared library; QEMU resolves these functions in its own
 * executable when it dlopen()s the plugin, so nothing here is linked at build time.
 *
 * Only opaque handles and scalar arguments cross this boundary, so no QEMU struct layout is
 * assumed (qemu_info_t is never dereferenced). */
#ifndef LITE_QEMU_PLUGIN_API_H
#define LITE_QEMU_PLUGIN_API_H

#include <stddef.h>
#include <stdint.h>

#define LITE_QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

/* The API version this plugin is written against; QEMU refuses versions outside its range. */
#define LITE_QEMU_PLUGIN_API_VERSION 1

typedef uint64_t qemu_plugin_id_t;

/* Opaque handles, valid only inside the callback that received them. */
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;

/* Whether a callback reads or writes guest registers; counting needs neither. */
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS = 0, QEMU_PLUGIN_CB_R_REGS = 1, QEMU_PLUGIN_CB_RW_REGS = 2 };

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void* userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void* userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);

/* Implemented by the plugin: called once at load with the "name=value" arguments of -plugin. */
LITE_QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc, char** argv);

/* Translation of a block of guest code: the place to attach execution callbacks. */
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
/* Called every time the translated block runs. */
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb* tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void* userdata);
/* Called every time one instruction of the block runs. */
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn* insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void* userdata);

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
struct qemu_plugin_insn* qemu_plugin_tb_get_insn(const struct qemu_plugin_tb* tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn* insn);
/* The name of the guest ELF symbol containing the instruction, or NULL (stripped / unknown). */
const char* qemu_plugin_insn_symbol(const struct qemu_plugin_insn* insn);

/* Called when the guest exits. */
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void* userdata);
/* Writes to QEMU's log (stderr unless -D names a file). */
void qemu_plugin_outs(const char* string);

#endif /* LITE_QEMU_PLUGIN_API_H */
