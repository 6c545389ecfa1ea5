#!/usr/bin/env python3
"""A search API that behaves as a Typestorm scenario's `backend` block says, written from the
documentation's definitions (docs/driver.md, `backend`) and not from Typestorm's code, so that
`typestorm crosscheck --model-server` can compare virtual time with a server Typestorm did not
build. Standard library only.

    python3 model_server.py SCENARIO.json [--port 0] [--seed 1] [--log FILE] [--schedule timeline|clock]

It prints `PORT n` on its first line and serves until its standard input closes.

`GET /search?q=TEXT` answers pretty-printed JSON (`json.dumps(..., indent=2)`):
`{"query": TEXT, "total": N, "items": [...]}` (at most `limit` items, default 10).

The model, as the documentation defines it:
- network round trip: log-normal with median `networkRTT` and sigma `networkRTTSpread`
  (constant when 0), one draw per request, each direction taking half. Loopback adds nearly
  nothing, so the server waits the first half before the request joins the queue and the second
  half after the service before it writes the answer.
- one server cell (`typistsPerServer` must cover the whole population: requests carry no typist,
  so the server cannot tell cells apart) with `workers` workers and a FIFO queue.
- service time: log-normal through `serviceTime.median` and `serviceTime.p99`
  (p99 = median * exp(2.326 sigma)), constant when they are equal; with probability
  `slowTail.probability` multiplied by `slowTail.factor`.
- `errorRate`: the server works, then answers 500. `transportErrorRate`: the request is lost;
  the server never works on it and the client sees the connection fail after a round trip.
- cancellation `client-only`: the server never hears of a cancel and finishes the work.
  (`honoured` and `ignored` are not served: an HTTP client that gives up closes its
  connection, and this server does not stop work on a close.)
- result count: none for one query in twenty of four or more characters, else a few.

`--schedule timeline` (the default) keeps each worker's schedule on the model's timeline: a
request starts when its worker became free by the model (end of the previous service), not when
the event loop got round to it, so a late timer delays only its own answer. `--schedule clock`
runs a plain worker pool instead: each worker sleeps its service time and takes the next request
when that sleep returns, so every late wake-up also delays everything queued behind it.

`--log FILE` writes one JSON line per request: times (seconds on the monotonic clock) it was
read, joined the queue, started and ended service (as scheduled and, for `clock`, as they
happened), was meant to be answered and was written, the queue length it found, when its
connection was accepted and how many requests that connection had carried before.
"""

import argparse
import asyncio
import hashlib
import heapq
import json
import math
import random
import sys
import time
from urllib.parse import parse_qs, urlsplit

Z99 = 2.326  # the standard normal's 99th percentile, as the documentation states it

UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def seconds(text):
    """A duration string with a unit ("300ms", "1.5s", "250us", "2m") in seconds."""
    text = str(text).strip()
    for unit in sorted(UNITS, key=len, reverse=True):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * UNITS[unit]
    raise SystemExit("model_server: duration %r has no unit (ms, s, ...)" % text)


class Model:
    def __init__(self, scenario):
        backend = scenario.get("backend", {})
        population = scenario.get("population", {})
        self.workers = int(backend.get("workers", 4))
        per_server = int(backend.get("typistsPerServer", 100))
        typists = int(population.get("typists", 0))
        if per_server < typists:
            raise SystemExit("model_server: typistsPerServer %d is less than the %d typists; this server is one cell "
                             "(requests do not say which typist sent them)" % (per_server, typists))
        service = backend.get("serviceTime", {})
        self.service_median = seconds(service.get("median", "8ms"))
        p99 = seconds(service.get("p99", "60ms"))
        self.service_sigma = math.log(p99 / self.service_median) / Z99 if p99 > self.service_median > 0 else 0.0
        tail = backend.get("slowTail", {})
        self.tail_probability = float(tail.get("probability", 0))
        self.tail_factor = float(tail.get("factor", 20))
        self.rtt_median = seconds(backend.get("networkRTT", "30ms"))
        self.rtt_sigma = float(backend.get("networkRTTSpread", 0.3))
        self.error_rate = float(backend.get("errorRate", 0))
        self.transport_error_rate = float(backend.get("transportErrorRate", 0))
        cancellation = backend.get("cancellation", "honoured")
        if cancellation != "client-only":
            raise SystemExit("model_server: cancellation %r is not served (only client-only: a closed connection "
                             "does not stop this server's work)" % cancellation)

    @staticmethod
    def lognormal(rng, median, sigma):
        return median if sigma <= 0 else median * math.exp(sigma * rng.gauss(0.0, 1.0))

    def draw(self, rng):
        """One request's round trip, failure and service time."""
        rtt = self.lognormal(rng, self.rtt_median, self.rtt_sigma)
        lost = rng.random() < self.transport_error_rate
        failed = rng.random() < self.error_rate
        service = self.lognormal(rng, self.service_median, self.service_sigma)
        if rng.random() < self.tail_probability:
            service *= self.tail_factor
        return rtt, lost, failed, service


def result_count(query):
    """Deterministic in the text: none for one query in twenty of four or more characters."""
    digest = int.from_bytes(hashlib.blake2b(query.encode("utf-8"), digest_size=8).digest(), "little")
    if len(query) >= 4 and digest % 20 == 0:
        return 0
    return 1 + digest % 7 + max(0, 2000 >> min(2 * len(query), 40))


class TimelineCell:
    """Workers as the times they become free; a request takes the earliest free one, in the
    order requests join the queue (FIFO)."""

    def __init__(self, workers):
        self.free = [0.0] * workers
        heapq.heapify(self.free)
        self.ends = []  # scheduled ends still ahead, to report the queue a request finds

    def schedule(self, arrival, service):
        while self.ends and self.ends[0] <= arrival:
            heapq.heappop(self.ends)
        found = max(0, len(self.ends) - len(self.free))
        free = heapq.heappop(self.free)
        start = max(arrival, free)
        end = start + service
        heapq.heappush(self.free, end)
        heapq.heappush(self.ends, end)
        return start, end, found


class ClockCell:
    """A plain worker pool: `workers` tasks each take the next request, sleep its service time
    and take the next when the sleep returns."""

    def __init__(self, workers):
        self.queue = asyncio.Queue()
        self.tasks = [asyncio.get_running_loop().create_task(self.work()) for _ in range(workers)]

    async def work(self):
        loop = asyncio.get_running_loop()
        while True:
            service, done = await self.queue.get()
            start = loop.time()
            await asyncio.sleep(service)
            done.set_result((start, loop.time()))

    async def serve(self, service):
        done = asyncio.get_running_loop().create_future()
        found = self.queue.qsize()
        self.queue.put_nowait((service, done))
        start, end = await done
        return start, end, found


class Server:
    def __init__(self, model, seed, schedule, log):
        self.model = model
        self.rng = random.Random(seed)
        self.schedule = schedule
        self.cell = TimelineCell(model.workers) if schedule == "timeline" else ClockCell(model.workers)
        self.log = log

    async def answer(self, query, limit, connection):
        """Waits as the model says and returns (status, body), or None for a lost request.
        `connection`: when the connection was accepted and how many requests it carried before."""
        loop = asyncio.get_running_loop()
        read = loop.time()
        rtt, lost, failed, service = self.model.draw(self.rng)
        one_way = rtt / 2
        arrival = read + one_way
        await asyncio.sleep(max(0.0, arrival - loop.time()))
        record = {"read": read, "arrival": arrival, "late": loop.time() - arrival,
                  "accepted": connection[0], "before": connection[1]}
        if lost:
            await asyncio.sleep(max(0.0, read + rtt - loop.time()))
            self.write_log(record)
            return None
        if self.schedule == "timeline":
            start, end, found = self.cell.schedule(arrival, service)
        else:
            start, end, found = await self.cell.serve(service)
        due = end + one_way
        await asyncio.sleep(max(0.0, due - loop.time()))
        record.update(start=start, end=end, service=service, queue=found, due=due, written=loop.time())
        self.write_log(record)
        if failed:
            return 500, json.dumps({"error": "modelled server error"}, indent=2)
        n = result_count(query)
        items = [{"id": i, "name": "%s %d" % (query, i)} for i in range(min(n, limit))]
        return 200, json.dumps({"query": query, "total": n, "items": items}, indent=2)

    def write_log(self, record):
        if self.log:
            self.log.write(json.dumps(record) + "\n")

    async def connection(self, reader, writer):
        accepted = asyncio.get_running_loop().time()
        served = 0
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        name, value = line.split(":", 1)
                        headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0") or 0)
                if length:
                    await reader.readexactly(length)
                url = urlsplit(target)
                if method != "GET" or url.path != "/search":
                    self.respond(writer, 404, json.dumps({"error": "GET /search?q=TEXT"}, indent=2))
                    await writer.drain()
                    continue
                params = parse_qs(url.query)
                query = params.get("q", [""])[0]
                limit = int(params.get("limit", ["10"])[0] or 10)
                answer = await self.answer(query, limit, (accepted, served))
                served += 1
                if answer is None:
                    break  # lost: close without an answer
                self.respond(writer, *answer)
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    break
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        finally:
            writer.close()

    @staticmethod
    def respond(writer, status, body):
        data = body.encode("utf-8")
        reason = {200: "OK", 404: "Not Found", 500: "Internal Server Error"}[status]
        writer.write(("HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                      % (status, reason, len(data))).encode("latin-1") + data)


async def main():
    parser = argparse.ArgumentParser(description="A search API following a scenario's backend model.")
    parser.add_argument("scenario")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--schedule", choices=["timeline", "clock"], default="timeline")
    parser.add_argument("--log")
    arguments = parser.parse_args()
    with open(arguments.scenario) as file:
        model = Model(json.load(file))
    log = open(arguments.log, "w", buffering=1 << 16) if arguments.log else None
    server = Server(model, arguments.seed, arguments.schedule, log)
    listener = await asyncio.start_server(server.connection, "127.0.0.1", arguments.port, backlog=4096)
    print("PORT", listener.sockets[0].getsockname()[1], flush=True)
    loop = asyncio.get_running_loop()
    stdin_closed = loop.create_future()
    loop.add_reader(sys.stdin.fileno(), lambda: stdin_closed.done() or (sys.stdin.buffer.raw.read(4096) or stdin_closed.set_result(None)))
    await stdin_closed
    listener.close()
    if log:
        log.close()


if __name__ == "__main__":
    asyncio.run(main())
