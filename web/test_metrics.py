"""GET /metrics against the real programs (docs/metrics.md): `gestured run --replay
demo/demo.events` with a region on a private socket, `gestured-web` in front of it, and a
Unix-socket subscriber. The scrape is read with prometheus_client's own text-format parser;
it must say gestured_up 1 and count exactly the gestures (by gesture, phase, region and
device) and touch-downs the subscriber received, one latency observation per line delivered
to it; with the daemon gone it must still answer, with gestured_up 0.

    test_metrics.py GESTURED GESTURED_WEB
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Dict, List, Tuple

from prometheus_client.parser import text_string_to_metric_families

# The live view's test has the helpers: the same checks, waits and summary line.
sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_live_view import DEADLINE, ROOT, accepts, check, free_port, results, wait_for  # noqa: E402


def scrape(url: str) -> Tuple[str, Dict[str, List[Tuple[Dict[str, str], float]]]]:
    with urllib.request.urlopen(url, timeout=10) as reply:
        content_type = reply.headers["content-type"]
        text = reply.read().decode()
    samples: Dict[str, List[Tuple[Dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    return content_type, samples


def run(gestured: str, gestured_web: str, work: Path) -> None:
    daemon_socket = str(work / "gestured.sock")
    config = work / "gestured.toml"
    config.write_text('[[region]]\nname = "left"\nrect = [0, 0, 0.5, 1]\n')
    port = free_port()
    url = "http://127.0.0.1:%d/metrics" % port
    daemon = subprocess.Popen(
        [gestured, "run", "--replay", str(ROOT / "demo/demo.events"), "--speed", "4", "--wait-for-subscriber", "--no-devices",
         "--socket", daemon_socket, "--config", str(config), "--log-level", "warning"])
    # --config: the checkout's file, never an installed /etc/gestured/gestured-web.toml.
    bridge = subprocess.Popen([gestured_web, "--listen", "127.0.0.1:%d" % port, "--socket", daemon_socket,
                               "--config", str(ROOT / "config/gestured-web.toml"), "--web-root", str(ROOT / "web")])
    try:
        wait_for("the daemon's socket", lambda: os.path.exists(daemon_socket))
        subscriber = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        subscriber.connect(daemon_socket)
        subscriber.settimeout(DEADLINE)
        subscriber.sendall(b'{"type":"subscribe","touches":true}\n')
        gestures: Counter = Counter()
        touch_downs = 0
        delivered = 0
        device = ""
        for line in subscriber.makefile("r", encoding="utf-8"):
            message = json.loads(line)
            if message["type"] == "device":
                device = message["device"]
                if message["phase"] == "removed":
                    break
            elif message["type"] == "gesture":
                gestures[(message["gesture"], message["phase"], message["region"] or "", message["device"])] += 1
                delivered += 1
            elif message["type"] == "touch":
                touch_downs += message["phase"] == "began"
                delivered += 1
        wait_for("the bridge's port", lambda: accepts(port))

        content_type, samples = scrape(url)
        check("/metrics is Prometheus' text format", content_type.startswith("text/plain; version=0.0.4"), content_type)
        check("gestured_up is 1", samples.get("gestured_up") == [({}, 1.0)], repr(samples.get("gestured_up")))
        scraped = Counter({(s["gesture"], s["phase"], s["region"], s["device"]): int(v)
                           for s, v in samples.get("gestured_gestures_total", [])})
        check("the demo's gestures were counted in and outside the region",
              any(k[2] == "left" for k in gestures) and any(k[2] == "" for k in gestures), repr(gestures))
        check("gestured_gestures_total matches what the subscriber received", scraped == gestures,
              "scraped %r\n    received %r" % (sorted(scraped.items()), sorted(gestures.items())))
        check("gestured_touches_total matches its touch-downs",
              samples.get("gestured_touches_total") == [({"device": device}, float(touch_downs))] and touch_downs > 0,
              "%r vs %d" % (samples.get("gestured_touches_total"), touch_downs))
        check("gestured_syn_dropped_total is 0", samples.get("gestured_syn_dropped_total") == [({"device": device}, 0.0)])
        check("one latency observation per line it was sent",
              samples.get("gestured_delivery_latency_seconds_count") == [({}, float(delivered))],
              "%r vs %d" % (samples.get("gestured_delivery_latency_seconds_count"), delivered))
        buckets = [v for _, v in samples.get("gestured_delivery_latency_seconds_bucket", [])]
        check("the latency buckets are cumulative up to +Inf", buckets == sorted(buckets) and buckets[-1] == delivered, repr(buckets))
        check("gestured_clients counts the subscriber, not the scrape", samples.get("gestured_clients") == [({}, 1.0)],
              repr(samples.get("gestured_clients")))
        check("gestured_devices is 0 after the recording", samples.get("gestured_devices") == [({}, 0.0)])
        last_touch = samples.get("gestured_last_touch_timestamp_seconds", [({}, 0.0)])[0][1]
        check("gestured_last_touch_timestamp_seconds is recent wall-clock time", time.time() - 120 < last_touch <= time.time() + 1,
              repr(last_touch))
        subscriber.close()

        daemon.terminate()
        daemon.wait(timeout=10)
        _, samples = scrape(url)
        check("with the daemon gone the scrape still answers, gestured_up 0",
              samples.get("gestured_up") == [({}, 0.0)] and "gestured_gestures_total" not in samples, repr(samples))
    finally:
        for process in (bridge, daemon):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="gestured-metrics-test."))
    try:
        run(sys.argv[1], sys.argv[2], work)
    except Exception as error:  # a timeout or a crash is a failure
        check("the test ran to the end", False, "%s: %s" % (type(error).__name__, error))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    failed = results.count(False)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
