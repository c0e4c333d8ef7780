#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""openmetrics_check.py: parse an OpenMetrics exposition with a real parser
and print its samples, one per line, for the tests to query.

The parser is Debian's python3-prometheus-client,
prometheus_client.openmetrics.parser, which is strict: it refuses a blank
line, anything after "# EOF" or a missing one, a family named twice or whose
name clashes with another's samples (x and x_total), a unit its name does
not end with, a bad escape, a counter sample that is negative or NaN. The
file is read as bytes and decoded as strict UTF-8, as the format demands.

Also checked here, for node_exporter's textfile collector (which parses the
Prometheus text format, not OpenMetrics): only counter and gauge families,
no timestamps, no '\\' or '"' in a HELP text, every family's samples
with the same label names, and no two samples alike (name and labels: a
scrape refuses the whole file for one). The same text is also read by the
client's Prometheus text format parser, which must find the same samples
(a counter's _total sample is untyped there, as in node_exporter).

Output: one JSON object per sample, {"name": ..., "labels": {...},
"value": ...}, for jq.

Usage: openmetrics_check.py FILE   (or - for stdin); exit 1 with the
parser's message when the exposition is refused.
"""
import json
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families
from prometheus_client.parser import text_string_to_metric_families as text_format_families


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "-"
    data = sys.stdin.buffer.read() if path == "-" else open(path, "rb").read()
    try:
        text = data.decode("utf-8", errors="strict")
        families = list(text_string_to_metric_families(text))
        for line in text.splitlines():
            if line.startswith("# HELP ") and ("\\" in line or '"' in line):
                raise ValueError("HELP with a backslash or quote: " + line)
        seen = set()
        for f in families:
            if f.type not in ("counter", "gauge"):
                raise ValueError("type the text format refuses: %s %s" % (f.name, f.type))
            label_names = None
            for s in f.samples:
                if s.timestamp is not None:
                    raise ValueError("timestamp: " + s.name)
                names = sorted(s.labels)
                if label_names is not None and names != label_names:
                    raise ValueError("label names differ within " + f.name)
                label_names = names
                key = (s.name, tuple(sorted(s.labels.items())))
                if key in seen:
                    raise ValueError("two samples alike: %s %s" % key)
                seen.add(key)
                print(json.dumps({"name": s.name, "labels": s.labels, "value": s.value}))
        text_samples = sorted((x.name, tuple(sorted(x.labels.items())), float(x.value))
                              for f in text_format_families(text) for x in f.samples)
        om_samples = sorted((x.name, tuple(sorted(x.labels.items())), float(x.value))
                            for f in families for x in f.samples)
        if text_samples != om_samples:
            raise ValueError("the text format parser reads other samples")
    except ValueError as e:  # UnicodeDecodeError is one
        print("openmetrics_check: refused: %s" % e, file=sys.stderr)
        sys.exit(1)


main()
