/*
 * regions.h: the regions section of a report (the marker API), in each
 * format; the text, CSV and JSON writers call these after their events.
 * Async-signal-safe, like every writer: formatting into a struct buf only.
 */
#ifndef PFSHIM_EXPORT_REGIONS_H
#define PFSHIM_EXPORT_REGIONS_H

#include "export/buf.h"
#include "export/report.h"

/* Each does nothing when @r->regions is NULL (the program used no marker). */
void regions_put_text(struct buf *b, const struct report *r);
void regions_put_csv(struct buf *b, const struct report *r);
/* JSON: `,"regions":{...}`, to be written just before the report's closing brace. */
void regions_put_json(struct buf *b, const struct report *r);

#endif
