#ifndef QUIRE_CPOPPLER_SHIM_H
#define QUIRE_CPOPPLER_SHIM_H
#include <poppler.h>
#include <cairo.h>
#include <glib.h>
#include <gio/gio.h>
#endif
