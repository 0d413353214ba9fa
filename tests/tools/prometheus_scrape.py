#!/usr/bin/env python3
"""Fetches a Prometheus text endpoint and reads it with the official Python client's parser
(Debian's python3-prometheus-client). Prints each sample as one JSON line:
{"family", "type", "name", "labels", "value"}. Exits 1 (with the parser's words) when the text
does not parse, 2 when the endpoint cannot be fetched or answers with another content type.

Usage: prometheus_scrape.py http://127.0.0.1:9464/metrics"""
import json
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def main():
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=10) as response:
            content_type = response.headers.get("Content-Type", "")
            text = response.read().decode("utf-8")
    except OSError as error:
        print(f"prometheus_scrape: cannot fetch {sys.argv[1]}: {error}", file=sys.stderr)
        return 2
    if not content_type.startswith("text/plain; version=0.0.4"):
        print(f"prometheus_scrape: content type {content_type!r}", file=sys.stderr)
        return 2
    try:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                print(json.dumps({"family": family.name, "type": family.type,
                                  "name": sample.name, "labels": sample.labels,
                                  "value": sample.value}))
    except ValueError as error:
        print(f"prometheus_scrape: the text does not parse: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
