// libpng reports errors by longjmp, which Swift cannot catch: this file keeps the setjmp in C.
#include "cpng.h"
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t *data;
    size_t length;
    size_t capacity;
    int failed;
} buffer_t;

typedef struct {
    char *errbuf;
    size_t errbuf_length;
} error_sink_t;

static void write_to_buffer(png_structp png, png_bytep bytes, png_size_t count) {
    buffer_t *buffer = (buffer_t *)png_get_io_ptr(png);
    if (buffer->failed) return;
    if (buffer->length + count > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 65536;
        while (capacity < buffer->length + count) capacity *= 2;
        uint8_t *grown = realloc(buffer->data, capacity);
        if (!grown) {
            buffer->failed = 1;
            png_error(png, "out of memory while encoding PNG");
            return;
        }
        buffer->data = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->length, bytes, count);
    buffer->length += count;
}

static void flush_nothing(png_structp png) { (void)png; }

static void on_error(png_structp png, png_const_charp message) {
    error_sink_t *sink = (error_sink_t *)png_get_error_ptr(png);
    if (sink && sink->errbuf && sink->errbuf_length > 0) {
        strncpy(sink->errbuf, message, sink->errbuf_length - 1);
        sink->errbuf[sink->errbuf_length - 1] = 0;
    }
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp message) { (void)png; (void)message; }

int quire_png_encode_rgb24(const uint8_t *pixels, int width, int height, int stride, int compression_level,
                           uint8_t **out, size_t *out_length, char *errbuf, size_t errbuf_length) {
    error_sink_t sink = {errbuf, errbuf_length};
    buffer_t buffer = {NULL, 0, 0, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, on_error, on_warning);
    if (!png) {
        if (errbuf && errbuf_length) { strncpy(errbuf, "png_create_write_struct failed", errbuf_length - 1); errbuf[errbuf_length - 1] = 0; }
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        if (errbuf && errbuf_length) { strncpy(errbuf, "png_create_info_struct failed", errbuf_length - 1); errbuf[errbuf_length - 1] = 0; }
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(buffer.data);
        return -1;
    }
    png_set_write_fn(png, &buffer, write_to_buffer, flush_nothing);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, compression_level);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
    png_write_info(png, info);
    // cairo's RGB24 is a native-endian 32-bit word 0xXXRRGGBB: on little-endian machines the bytes are B,G,R,X.
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    png_set_bgr(png);
    png_set_filler(png, 0, PNG_FILLER_AFTER);
#else
    png_set_filler(png, 0, PNG_FILLER_BEFORE);
#endif
    for (int y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)(pixels + (size_t)y * (size_t)stride));
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    *out = buffer.data;
    *out_length = buffer.length;
    return 0;
}

void quire_png_free(uint8_t *buffer) { free(buffer); }
