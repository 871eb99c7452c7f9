#ifndef QUIRE_CPNG_H
#define QUIRE_CPNG_H
#include <stddef.h>
#include <stdint.h>

/// Encodes 32-bit pixels laid out as cairo's CAIRO_FORMAT_RGB24 (native-endian 0xXXRRGGBB words) as an
/// 8-bit RGB PNG in memory. `compression_level` is zlib's 0-9; no row filter is applied.
/// On success returns 0 and stores a malloc'ed buffer in *out (free it with quire_png_free).
/// On failure returns -1 and writes libpng's message into errbuf; nothing is allocated.
int quire_png_encode_rgb24(const uint8_t *pixels, int width, int height, int stride, int compression_level,
                           uint8_t **out, size_t *out_length, char *errbuf, size_t errbuf_length);

/// Frees a buffer returned by quire_png_encode_rgb24.
void quire_png_free(uint8_t *buffer);

#endif
