#!/usr/bin/env python3
"""Where a running process's resident memory is (docs/performance.md "Idle memory").

    scripts/memory-accounting.py PID

Prints VmRSS split into anonymous and file-backed pages, the resident KiB of every mapped
file (/proc/PID/smaps, Rss summed per path: the executable, each shared library, the heap,
the stack), and for the executable the resident KiB of each ELF section (/proc/PID/pagemap:
needs root; a page shared by two sections counts for the one it starts in). Nothing is
changed in the process.
"""
import os
import re
import struct
import subprocess
import sys

PAGE = os.sysconf("SC_PAGE_SIZE")


def status(pid):
    fields = {}
    for line in open(f"/proc/{pid}/status"):
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return fields


def mappings(pid):
    """(start, end, path) of every mapping and Rss KiB per path."""
    spans, rss, path = [], {}, None
    for line in open(f"/proc/{pid}/smaps"):
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            parts = line.split()
            path = parts[5] if len(parts) > 5 else "[anonymous]"
            start, end = (int(x, 16) for x in parts[0].split("-"))
            spans.append((start, end, path))
        elif line.startswith("Rss:"):
            rss[path] = rss.get(path, 0) + int(line.split()[1])
    return spans, rss


def sections(executable):
    """(name, address, size) of the allocated sections."""
    result = []
    out = subprocess.run(["readelf", "-SW", executable], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        match = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if match and int(match.group(2), 16):
            result.append((match.group(1), int(match.group(2), 16), int(match.group(3), 16)))
    return result


def resident_by_section(pid, executable, spans):
    own = [span for span in spans if span[2] == executable]
    base = own[0][0]
    table = sections(executable)
    counts = {}
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for start, end, _ in own:
            for page in range(start, end, PAGE):
                pagemap.seek(page // PAGE * 8)
                if not struct.unpack("Q", pagemap.read(8))[0] >> 63 & 1:
                    continue
                offset = page - base
                name = next((n for n, a, s in table if a <= offset < a + max(s, 1)), None)
                name = name or next((n for n, a, s in table if a < offset + PAGE and offset < a + s), "(between sections)")
                counts[name] = counts.get(name, 0) + PAGE // 1024
    sizes = {name: size // 1024 for name, _, size in table}
    return counts, sizes


def main():
    pid = int(sys.argv[1])
    fields = status(pid)
    print(f"VmRSS {fields['VmRSS']} = anonymous {fields['RssAnon']} + file {fields['RssFile']} (+ shmem {fields['RssShmem']})")
    spans, rss = mappings(pid)
    print("resident KiB per mapping:")
    for path, kib in sorted(rss.items(), key=lambda item: -item[1]):
        if kib:
            print(f"  {kib:7d}  {path}")
    executable = os.readlink(f"/proc/{pid}/exe")
    counts, sizes = resident_by_section(pid, executable, spans)
    print(f"resident KiB per section of {executable}:")
    for name, kib in sorted(counts.items(), key=lambda item: -item[1]):
        print(f"  {kib:7d} of {sizes.get(name, 0):6d}  {name}")


if __name__ == "__main__":
    main()
