#!/usr/bin/env python3
"""fatbin_archs.py FILE...: the GPU code embedded in ELF objects or programs
built by nvcc, one code a line, sorted: sm_NN for each SASS (cubin) image,
compute_NN for each PTX image, as `cuobjdump --list-elf` and `--list-ptx`
name them. For machines where the toolkit has no cuobjdump.

nvcc puts its fat binaries in the .nv_fatbin section (__nv_relfatbin with
-rdc): containers that start with the magic 0xBA55ED50, a 16-bit version, a
16-bit header size and a 64-bit size of the images that follow; each image
has a header of its own: 16-bit kind (1 PTX, 2 ELF), 16-bit version, 32-bit
header size, 64-bit payload size, ..., and the 32-bit architecture (e.g.
80, 120) at byte 28. Only these headers are read; payloads may be
compressed. Exits 1 with a message when a file has no fat binary or one
does not parse."""
import struct
import sys

MAGIC = 0xBA55ED50
SECTIONS = (b".nv_fatbin", b"__nv_relfatbin")


def sections(data):
    """(name, bytes) of each section of an ELF64 little-endian file."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a 64-bit little-endian ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = []
    for k in range(shnum):
        name, _typ, _flags, _addr, off, size = struct.unpack_from(
            "<IIQQQQ", data, shoff + k * shentsize)
        heads.append((name, off, size))
    stroff = heads[shstrndx][1]
    for name, off, size in heads:
        end = data.index(b"\0", stroff + name)
        yield data[stroff + name:end], data[off:off + size]


def images(blob):
    """(kind, arch) of each image of the containers in blob."""
    at = 0
    found = False
    while at + 16 <= len(blob):
        magic, _ver, hsize, fsize = struct.unpack_from("<IHHQ", blob, at)
        if magic != MAGIC:
            at += 8  # containers are 8-byte aligned, padding between them
            continue
        found = True
        pos, end = at + hsize, at + hsize + fsize
        if end > len(blob):
            raise ValueError("a fat binary runs past its section")
        while pos < end:
            kind, _v, ehsize, size = struct.unpack_from("<HHIQ", blob, pos)
            arch, = struct.unpack_from("<I", blob, pos + 28)
            if kind not in (1, 2) or ehsize < 32 or pos + ehsize + size > end:
                raise ValueError("an image header does not parse at %d" % pos)
            yield kind, arch
            pos += ehsize + size
        at = end
    if not found:
        raise ValueError("no fat binary container in the section")


def main(argv):
    if len(argv) < 2:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    codes = set()
    for path in argv[1:]:
        with open(path, "rb") as f:
            data = f.read()
        try:
            blobs = [b for n, b in sections(data) if n in SECTIONS]
            if not blobs:
                raise ValueError("no .nv_fatbin section: no GPU code")
            for blob in blobs:
                for kind, arch in images(blob):
                    codes.add(("sm_%d" if kind == 2 else "compute_%d") % arch)
        except (ValueError, struct.error) as e:
            print("fatbin_archs.py: %s: %s" % (path, e), file=sys.stderr)
            return 1

    def order(c):
        kind, num = c.split("_")
        return (kind != "sm", int(num))
    for c in sorted(codes, key=order):
        print(c)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
