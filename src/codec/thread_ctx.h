/* Per-thread compression state kept across calls. libdeflate's compressor
 * at gzip level 6 and zstd's contexts hold hundreds of KiB of tables;
 * allocating them for every Parquet page (thousands per file) made the
 * kernel fault in and zero fresh pages each time (~10% of a bulk load's
 * CPU). Each thread keeps one of each, freed when the thread exits (pool
 * threads) or by hudi_codec_thread_release. Not shared: no locking. */
#ifndef HUDI_CODEC_THREAD_CTX_H
#define HUDI_CODEC_THREAD_CTX_H

#include <zstd.h>

struct libdeflate_compressor;
struct libdeflate_decompressor;

/* This thread's state for the call in progress; NULL when memory ran out
 * (callers then allocate as before). Valid until the thread exits or calls
 * hudi_codec_thread_release. */
struct libdeflate_compressor *hudi_codec_thread_deflater(int level); /* 1..12 */
struct libdeflate_decompressor *hudi_codec_thread_inflater(void);
ZSTD_CCtx *hudi_codec_thread_zstd_c(void);
ZSTD_DCtx *hudi_codec_thread_zstd_d(void);

/* Frees the calling thread's state now. */
void hudi_codec_thread_release(void);

#endif
