#!/usr/bin/env python3
"""Generate Quire's PDF test fixtures (everything that does not need qpdf or apt).

Usage: gen_fixtures.py OUTDIR

Called by Fixtures/generate.sh, which provides a venv with reportlab, fpdf2
and pypdf (pinned versions) and afterwards runs qpdf for the encrypted and
linearized variants and copies the third-party helloworld.pdf.

Every output is byte-reproducible:
  * reportlab canvases use invariant=1 (fixed dates and /ID),
  * fpdf2 gets a fixed creation date and producer (its /ID is an MD5 of the
    content),
  * pypdf-written files are cloned from invariant reportlab output and get a
    fixed /ID and fixed metadata,
  * damaged variants are pure byte manipulations of the above.

All files written by this script are CC0 / public domain.
"""

import contextlib
import datetime
import hashlib
import os
import re
import secrets
import sys

from fpdf import FPDF
from pypdf import PdfReader, PdfWriter
from pypdf.annotations import Highlight, Text
from pypdf.constants import UserAccessPermissions as Perm
from pypdf.generic import (ArrayObject, ByteStringObject, FloatObject,
                           NameObject, TextStringObject)
from reportlab.lib.pagesizes import A4, letter
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

FIXED_ID = ArrayObject([ByteStringObject(b"QuireFixture0001"),
                        ByteStringObject(b"QuireFixture0001")])


def path(out, name):
    return os.path.join(out, name)


def new_canvas(out, name, pagesize, title, author="Fixture Author"):
    c = canvas.Canvas(path(out, name), pagesize=pagesize, invariant=1)
    c.setTitle(title)
    c.setAuthor(author)
    c.setSubject("Quire test fixture")
    c.setCreator("Quire gen_fixtures.py")
    return c


def finish_pypdf(writer, out, name, title):
    """Write a pypdf document with fixed metadata and a fixed /ID."""
    writer.metadata = None  # drop what was cloned; set everything explicitly
    writer.add_metadata({
        "/Title": title,
        "/Author": "Fixture Author",
        "/Subject": "Quire test fixture",
        "/Creator": "Quire gen_fixtures.py",
        "/Producer": "pypdf (Quire gen_fixtures.py)",
        "/CreationDate": "D:20000101000000+00'00'",
        "/ModDate": "D:20000101000000+00'00'",
    })
    writer._ID = FIXED_ID  # pypdf would otherwise keep/derive one; pin it
    with open(path(out, name), "wb") as f:
        writer.write(f)


# --------------------------------------------------------------------------
# Generated documents
# --------------------------------------------------------------------------

def one_page(out):
    c = canvas.Canvas(path(out, "one-page.pdf"), pagesize=letter, invariant=1)
    c.setTitle("One Page Fixture")
    c.setAuthor("Fixture Author")
    c.setFont("Helvetica", 14)
    c.drawString(72, 720, "Hello from page one.")
    c.drawString(72, 700, "The quick brown fox jumps over the lazy dog.")
    c.showPage()
    c.save()


def hundred_pages(out):
    c = canvas.Canvas(path(out, "hundred-pages.pdf"), pagesize=A4, invariant=1)
    c.setTitle("Hundred Pages")
    c.setAuthor("Fixture Author")
    for p in range(1, 101):
        c.setFont("Helvetica-Bold", 16)
        c.drawString(72, 800, f"Page {p} of 100")
        c.setFont("Helvetica", 10)
        for i in range(45):
            c.drawString(72, 770 - i * 15,
                         f"Line {i + 1} on page {p}: lorem ipsum dolor sit amet, "
                         f"consectetur adipiscing elit {p * 1000 + i}.")
        c.showPage()
    c.save()


def metadata(out):
    pdf = FPDF(unit="pt", format="A4")
    pdf.set_title("Métadonnées – テスト Title")
    pdf.set_author("Zoë Müller")
    pdf.set_subject("Fixture subject")
    pdf.set_keywords("alpha, beta, gamma")
    pdf.set_creator("fpdf2 fixture script")
    pdf.set_producer("fpdf2 (Quire gen_fixtures.py)")
    pdf.set_creation_date(datetime.datetime(2024, 1, 2, 3, 4, 5,
                                            tzinfo=datetime.timezone.utc))
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.cell(text="Metadata fixture, page 1 (A4 portrait).")
    pdf.add_page(format="Letter", orientation="L")
    pdf.cell(text="Page 2 is US Letter landscape.")
    pdf.output(path(out, "metadata.pdf"))


def mixed_sizes(out):
    pages = [
        # Sizes rounded to 2 decimals on purpose, so tests can compare exactly.
        ((595.28, 841.89), 0, "Page 1: A4 portrait, 595.28 x 841.89 pt"),
        ((792, 612), 0, "Page 2: US Letter landscape, 792 x 612 pt"),
        ((419.53, 595.28), 0, "Page 3: A5 portrait, 419.53 x 595.28 pt"),
        ((612, 792), 90, "Page 4: US Letter portrait 612 x 792 pt with /Rotate 90"),
    ]
    c = new_canvas(out, "mixed-sizes.pdf", A4, "Mixed Sizes Fixture")
    for (w, h), rotate, text in pages:
        # reportlab writes MediaBox [0 0 h w] for /Rotate 90 or 270, so pass
        # the size swapped to get MediaBox [0 0 w h] in the file.
        c.setPageSize((h, w) if rotate in (90, 270) else (w, h))
        c.setPageRotation(rotate)
        c.setFont("Helvetica", 12)
        c.drawString(36, h - 72, text)  # user space = MediaBox, unrotated
        c.showPage()
    c.save()


def page_labels(out):
    expected = ["i", "ii", "1", "2", "3", "A-1"]
    tmp = path(out, "page-labels.tmp.pdf")
    c = canvas.Canvas(tmp, pagesize=letter, invariant=1)
    for n, label in enumerate(expected, start=1):
        c.setFont("Helvetica", 14)
        c.drawString(72, 720, f"Physical page {n}, page label \"{label}\".")
        c.showPage()
    c.save()
    w = PdfWriter(clone_from=PdfReader(tmp))
    w.set_page_label(0, 1, style="/r")                   # i, ii
    w.set_page_label(2, 4, style="/D", start=1)          # 1, 2, 3
    w.set_page_label(5, 5, style="/D", prefix="A-", start=1)
    finish_pypdf(w, out, "page-labels.pdf", "Page Labels Fixture")
    os.remove(tmp)


def annotations(out):
    tmp = path(out, "annotations.tmp.pdf")
    line1 = "This first line carries a highlight annotation."
    x, y, size = 72, 720, 14
    c = canvas.Canvas(tmp, pagesize=letter, invariant=1)
    c.setFont("Helvetica", size)
    c.drawString(x, y, line1)
    c.drawString(x, y - 20, "A note annotation sits at the right margin.")
    c.showPage()
    c.setFont("Helvetica", size)
    c.drawString(x, y, "Page two has no annotations.")
    c.showPage()
    c.save()

    w = PdfWriter(clone_from=PdfReader(tmp))
    note = Text(rect=(520, 700, 540, 720), text="Fixture note", open=False)
    w.add_annotation(0, note)

    x1 = x + stringWidth(line1, "Helvetica", size)
    y0, y1 = y - 4, y + size  # roughly descender .. ascender
    quad = ArrayObject([FloatObject(v) for v in
                        (x, y1, x1, y1, x, y0, x1, y0)])
    hl = Highlight(rect=(x, y0, x1, y1), quad_points=quad,
                   highlight_color="ffff00", printing=True)
    hl[NameObject("/Contents")] = TextStringObject("Fixture highlight")
    w.add_annotation(0, hl)
    finish_pypdf(w, out, "annotations.pdf", "Annotations Fixture")
    os.remove(tmp)


# --------------------------------------------------------------------------
# AES-256 encrypted variants
# --------------------------------------------------------------------------
#
# qpdf cannot write AES-256 (R6) reproducibly: even with --static-id and
# --static-aes-iv it draws the file key and the U/O salts from /dev/urandom,
# so two runs differ.  (Its RC4-128 output is reproducible; generate.sh uses
# qpdf for that one.)  pypdf takes all its randomness from
# secrets.token_bytes, so we swap that for a seeded SHA-256 counter stream
# while encrypting and writing.  Fixtures only: this is not secure.

@contextlib.contextmanager
def deterministic_random(seed):
    counter = [0]
    original = secrets.token_bytes

    def token_bytes(n=32):
        buf = b""
        while len(buf) < n:
            counter[0] += 1
            buf += hashlib.sha256(seed + b"/%d" % counter[0]).digest()
        return buf[:n]

    secrets.token_bytes = token_bytes
    try:
        yield
    finally:
        secrets.token_bytes = original


def encrypt_aes256(out, src, name, user_pw, owner_pw, permissions):
    with deterministic_random(name.encode()):
        w = PdfWriter(clone_from=PdfReader(path(out, src)))
        w._ID = FIXED_ID
        w.encrypt(user_password=user_pw, owner_password=owner_pw,
                  permissions_flag=permissions, algorithm="AES-256")
        with open(path(out, name), "wb") as f:
            w.write(f)


def encrypted(out):
    all_perms = Perm.all()
    encrypt_aes256(out, "one-page.pdf", "encrypted-aes256.pdf",
                   "userpw", "ownerpw", all_perms)
    no_print = all_perms & ~Perm.PRINT & ~Perm.PRINT_TO_REPRESENTATION
    encrypt_aes256(out, "one-page.pdf", "owner-only-encrypted.pdf",
                   "", "ownerpw", no_print)


# --------------------------------------------------------------------------
# Damaged / non-PDF variants (pure byte manipulation)
# --------------------------------------------------------------------------

def read(out, name):
    with open(path(out, name), "rb") as f:
        return f.read()


def write(out, name, data):
    with open(path(out, name), "wb") as f:
        f.write(data)


def damaged(out):
    one = read(out, "one-page.pdf")
    hundred = read(out, "hundred-pages.pdf")

    write(out, "truncated.pdf", one[: len(one) // 2])
    write(out, "truncated-tail.pdf", hundred[: len(hundred) - 200])
    write(out, "not-a-pdf.pdf", b"this is not a pdf\n")
    write(out, "empty.pdf", b"")

    # broken-xref.pdf: keep "xref", the subsection header, the trailer and
    # startxref, but replace every 20-byte entry with junk digits of the same
    # length (offsets far beyond EOF, nonsense generations).
    m = re.search(rb"\nxref\r?\n(\d+) (\d+)\r?\n", one)
    assert m, "no classic xref table in one-page.pdf"
    count = int(m.group(2))
    start = m.end()
    end = start + 20 * count
    assert one[end:end + 7] == b"trailer", one[end:end + 20]
    junk = b"".join(b"%010d %05d n \n" % (9876543210 - 1111111 * i, 77777 - i)
                    for i in range(count))
    assert len(junk) == 20 * count
    write(out, "broken-xref.pdf", one[:start] + junk + one[end:])

    # bad-xref-offset.pdf: startxref points at offset 999 (inside nothing
    # useful) instead of the xref table.
    m = re.search(rb"startxref\s+(\d+)", one)
    write(out, "bad-xref-offset.pdf", one[: m.start(1)] + b"999" + one[m.end(1):])


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_fixtures.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    one_page(out)
    hundred_pages(out)
    metadata(out)
    mixed_sizes(out)
    page_labels(out)
    annotations(out)
    encrypted(out)
    damaged(out)


if __name__ == "__main__":
    main()
