/* Per-thread compression state (thread_ctx.h). */
#include "codec/thread_ctx.h"

#include <libdeflate.h>
#include <pthread.h>
#include <stdlib.h>

#define LEVELS 13 /* libdeflate levels 0..12 */

typedef struct codec_ctx {
  struct libdeflate_compressor *deflate[LEVELS];
  struct libdeflate_decompressor *inflate;
  ZSTD_CCtx *zc;
  ZSTD_DCtx *zd;
} codec_ctx;

static _Thread_local codec_ctx *tl_ctx;
static pthread_key_t ctx_key;
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;

static void ctx_free(void *p) {
  codec_ctx *c = p;
  if (!c) return;
  for (int i = 0; i < LEVELS; i++) libdeflate_free_compressor(c->deflate[i]);
  libdeflate_free_decompressor(c->inflate);
  ZSTD_freeCCtx(c->zc);
  ZSTD_freeDCtx(c->zd);
  free(c);
}

/* The key's destructor frees a thread's state when the thread exits. */
static void ctx_key_make(void) { (void)pthread_key_create(&ctx_key, ctx_free); }

static codec_ctx *ctx(void) {
  if (tl_ctx) return tl_ctx;
  pthread_once(&ctx_once, ctx_key_make);
  codec_ctx *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  if (pthread_setspecific(ctx_key, c) != 0) {
    free(c);
    return NULL;
  }
  return tl_ctx = c;
}

struct libdeflate_compressor *hudi_codec_thread_deflater(int level) {
  codec_ctx *c = ctx();
  if (!c || level < 0 || level >= LEVELS) return NULL;
  if (!c->deflate[level]) c->deflate[level] = libdeflate_alloc_compressor(level);
  return c->deflate[level];
}

struct libdeflate_decompressor *hudi_codec_thread_inflater(void) {
  codec_ctx *c = ctx();
  if (!c) return NULL;
  if (!c->inflate) c->inflate = libdeflate_alloc_decompressor();
  return c->inflate;
}

ZSTD_CCtx *hudi_codec_thread_zstd_c(void) {
  codec_ctx *c = ctx();
  if (!c) return NULL;
  if (!c->zc) c->zc = ZSTD_createCCtx();
  return c->zc;
}

ZSTD_DCtx *hudi_codec_thread_zstd_d(void) {
  codec_ctx *c = ctx();
  if (!c) return NULL;
  if (!c->zd) c->zd = ZSTD_createDCtx();
  return c->zd;
}

void hudi_codec_thread_release(void) {
  if (!tl_ctx) return;
  pthread_setspecific(ctx_key, NULL);
  ctx_free(tl_ctx);
  tl_ctx = NULL;
}
