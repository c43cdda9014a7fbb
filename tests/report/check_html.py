#!/usr/bin/env python3
"""The HTML report in a real headless Chromium: log text that looks like markup must stay text
(no script runs, no element is injected), and the timeline must render (its root-cause marker's
colour is on the screenshot). Exit 77 (skipped) when Chromium is not installed."""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

dtriage = sys.argv[1]
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if not chromium:
    print("chromium is not installed (tools/install-deps.sh installs it): skipped")
    sys.exit(77)

tmp = tempfile.mkdtemp()
job = os.path.join(tmp, "job")
os.makedirs(os.path.join(job, "gpu-x01"))
os.makedirs(os.path.join(job, "gpu-x02"))
attack1 = "<script>document.body.setAttribute('data-pwned','script')</script>"
attack2 = "\"><img src=x onerror=\"document.body.setAttribute('data-pwned','img')\">"
with open(os.path.join(job, "gpu-x02", "train.log"), "w") as f:
    f.write("2025-11-04 10:19:50   [rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. " + attack1 + "\n")
    f.write("gpu-x02:4411:4490 [2] NCCL INFO [Service thread] Connection closed by localRank 2 " + attack2 + "\n")
with open(os.path.join(job, "gpu-x01", "train.log"), "w") as f:
    f.write("[2025-11-04 10:20:00] gpu-x01:100:100 [0] misc/socket.cc:49 NCCL WARN socketProgress: "
            "Connection closed by remote peer gpu-x02<51159> " + attack2 + "\n")
    f.write("[rank0]:[E1104 10:20:05.100000000 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=88, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) " + attack1 + "\n")
with open(os.path.join(job, "gpu-x02", "dmesg.log"), "w") as f:
    f.write("[2025-11-04T10:19:58.000000Z] kern || 2025-11-04 10:19:58   note " + attack1 + "\n")
report = os.path.join(tmp, "report.html")
subprocess.run([dtriage, "analyze", "--format", "html", "-o", report, job], check=False)
html = open(report, encoding="utf-8").read()
problems = []
if "<script" in html.lower():
    problems.append("the report contains a <script> element")
if "<img" in html.lower():
    problems.append("the report contains an <img> element")
if "&lt;script&gt;" not in html:
    problems.append("the log text with <script> is not shown escaped")

flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--user-data-dir=" + os.path.join(tmp, "profile"), "--window-size=1040,900"]
url = "file://" + report
dom = subprocess.run([chromium, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
if not dom:
    problems.append("chromium returned no DOM")
if re.search(r"<body[^>]*data-pwned", dom):
    problems.append("a script from the log ran in the browser")
if "<img" in dom.lower():
    problems.append("an <img> element was injected")
if 'id="timeline"' not in dom or 'class="root"' not in dom:
    problems.append("the timeline or its root-cause marker is missing from the DOM")

shot = os.path.join(tmp, "shot.png")
subprocess.run([chromium, *flags, "--screenshot=" + shot, url], capture_output=True, timeout=120)


def png_pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), "unexpected PNG format"
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    while i < len(raw):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return rows, bpp


if not os.path.exists(shot):
    problems.append("no screenshot was written")
else:
    rows, bpp = png_pixels(shot)
    # #b2182b is used by the timeline's root-cause marker (and its legend dot) only.
    red = sum(1 for row in rows[:500] for x in range(0, len(row), bpp)
              if abs(row[x] - 0xb2) < 10 and abs(row[x + 1] - 0x18) < 10 and abs(row[x + 2] - 0x2b) < 10)
    orange = sum(1 for row in rows[:500] for x in range(0, len(row), bpp)
                 if abs(row[x] - 255) < 12 and abs(row[x + 1] - 127) < 12 and abs(row[x + 2] - 14) < 12)
    print(f"timeline pixels: root marker {red}, consequence markers {orange}")
    if red < 120 or orange < 60:
        problems.append("the timeline's markers are not on the screenshot")

# The Chinese report: its language declared, its words (not only the logs') in Chinese, and a font
# that has them (install-deps installs fonts-noto-cjk; without one the browser draws empty boxes).
report_zh = os.path.join(tmp, "report.zh.html")
subprocess.run([dtriage, "analyze", "--lang", "zh", "--format", "html", "-o", report_zh, job], check=False)
dom_zh = subprocess.run([chromium, *flags, "--dump-dom", "file://" + report_zh], capture_output=True, text=True, timeout=120).stdout
if '<html lang="zh-CN">' not in dom_zh:
    problems.append("the Chinese report does not declare lang zh-CN")
if "时间线" not in dom_zh or "根因" not in dom_zh:
    problems.append("the Chinese report's headings are not in Chinese")
fonts = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True).stdout if shutil.which("fc-list") else ""
if not fonts.strip():
    problems.append("no font with Chinese glyphs is installed (tools/install-deps.sh: fonts-noto-cjk)")

for p in problems:
    print("FAIL", p)
print(f"html: {1 if not problems else 0} passed, {1 if problems else 0} failed")
sys.exit(1 if problems else 0)
