"""The few pieces of the WebAssembly binary format the build scripts read and write
(scripts/order-functions, scripts/wasm-size-report, scripts/finish-glue, scripts/build-wasm):
sections, the imports, the code section's bodies, the `name` section's function names, and the
rewrites of a split module."""


def leb(data, i):
    """The unsigned LEB128 at `data[i]`, and the offset after it."""
    value = shift = 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def uleb(value):
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def name_of(data, i):
    length, i = leb(data, i)
    return data[i:i + length].decode("utf-8", "replace"), i + length


def sections(data):
    """Each section of a module as (id, payload)."""
    i = 8
    while i < len(data):
        kind = data[i]
        size, i = leb(data, i + 1)
        yield kind, data[i:i + size]
        i += size


def section(kind, payload):
    return bytes([kind]) + uleb(len(payload)) + payload


def is_name_section(kind, payload):
    return kind == 0 and payload[:5] == b"\x04name"


def imports(payload):
    """Each import of an import section as (module, name, kind, descriptor), the descriptor's bytes
    starting with the kind's."""
    count, i = leb(payload, 0)
    for _ in range(count):
        module, i = name_of(payload, i)
        name, i = name_of(payload, i)
        start, kind = i, payload[i]
        i += 1
        if kind == 0:  # function: type index
            _, i = leb(payload, i)
        elif kind == 1:  # table: reftype, limits
            flags, i = leb(payload, i + 1)
            _, i = leb(payload, i)
            if flags & 1:
                _, i = leb(payload, i)
        elif kind == 2:  # memory: limits
            flags, i = leb(payload, i)
            _, i = leb(payload, i)
            if flags & 1:
                _, i = leb(payload, i)
        elif kind == 3:  # global: valtype, mutability
            i += 2
        elif kind == 4:  # tag
            _, i = leb(payload, i + 1)
        yield module, name, kind, payload[start:i]


def import_payload(entries):
    """The payload of an import section of (module, name, descriptor) entries."""
    out = bytearray(uleb(len(entries)))
    for module, name, descriptor in entries:
        for text in (module.encode(), name.encode()):
            out += uleb(len(text)) + text
        out += descriptor
    return bytes(out)


def imported_functions(payload):
    """How many functions an import section imports: they come first in the function index space."""
    return sum(1 for _, _, kind, _ in imports(payload) if kind == 0)


def bodies(payload):
    """The function bodies of a code section, in index order."""
    count, i = leb(payload, 0)
    for _ in range(count):
        size, i = leb(payload, i)
        yield payload[i:i + size]
        i += size


def function_names(subsections):
    """The function names of a `name` custom section's subsections (subsection 1)."""
    i = 0
    while i < len(subsections):
        sub = subsections[i]
        size, i = leb(subsections, i + 1)
        if sub == 1:
            names = {}
            count, j = leb(subsections, i)
            for _ in range(count):
                index, j = leb(subsections, j)
                names[index], j = name_of(subsections, j)
            return names
        i += size
    return {}


def name_section(names):
    """A `name` custom section naming the functions of `names` (index -> name)."""
    entries = bytearray(uleb(len(names)))
    for index in sorted(names):
        name = names[index].encode()
        entries += uleb(index) + uleb(len(name)) + name
    return section(0, uleb(4) + b"name" + section(1, bytes(entries)))


def rewrite(path, change):
    """Writes the module at `path` again, each section's payload as `change(kind, payload)` gives it."""
    data = open(path, "rb").read()
    out = bytearray(data[:8])
    for kind, payload in sections(data):
        out += section(kind, change(kind, payload))
    open(path, "wb").write(out)


def copy_section(kind, source, target):
    """Gives the module at `target` the section `kind` of the one at `source`, in place of its own
    (which must be there, and be the only one). `kind` may be given as text, as build-wasm does."""
    kind = int(kind)
    (payload,) = [payload for k, payload in sections(open(source, "rb").read()) if k == kind]
    replaced = [k for k, _ in sections(open(target, "rb").read()) if k == kind]
    if len(replaced) != 1:
        raise SystemExit(f"{target} has {len(replaced)} sections of kind {kind}, not one")
    rewrite(target, lambda k, own: payload if k == kind else own)


def no_code(path):
    """Fails unless the module at `path` defines no function."""
    if any(kind == 10 and leb(payload, 0)[0] for kind, payload in sections(open(path, "rb").read())):
        raise SystemExit(f"{path} defines functions")


def _const_expr_end(data, i):
    """The offset after a constant expression (i32/i64.const, global.get, ... end) at `i`."""
    while data[i] != 0x0B:
        op, i = data[i], i + 1
        if op in (0x41, 0x42, 0x23):  # i32.const, i64.const (LEB128 of either sign), global.get
            while data[i] & 0x80:
                i += 1
            i += 1
        elif op not in (0x6A, 0x6B, 0x6C, 0x7C, 0x7D, 0x7E):  # the extended-const arithmetic
            raise ValueError(f"constant expression opcode 0x{op:02x}")
    return i + 1


def _segments(kind, payload):
    """Each segment of a data (11) or element (9) section as its bytes, and whether all are active
    (placed by an offset, so their order does not matter when none overlaps another)."""
    count, i = leb(payload, 0)
    out, active = [], True
    for _ in range(count):
        start = i
        flags, i = leb(payload, i)
        if kind == 11:
            active &= flags != 1
            if flags == 2:
                _, i = leb(payload, i)
            if flags != 1:
                i = _const_expr_end(payload, i)
            size, i = leb(payload, i)
            i += size
        else:
            active &= not flags & 1
            if flags & 2 and not flags & 1:
                _, i = leb(payload, i)  # table index
            if not flags & 1:
                i = _const_expr_end(payload, i)
            if flags & 3:
                i += 1  # element kind or reference type
            n, i = leb(payload, i)
            for _ in range(n):
                if flags & 4:
                    i = _const_expr_end(payload, i)
                else:
                    _, i = leb(payload, i)
        out.append(payload[start:i])
    return out, active


def sort_segments(path):
    """Puts the module's active data and element segments in the order of their bytes: the same
    module whatever order a tool wrote them in (wasm-split-cli's varies from run to run)."""

    def sort(kind, payload):
        if kind not in (9, 11):
            return payload
        segments, active = _segments(kind, payload)
        return uleb(len(segments)) + b"".join(sorted(segments)) if active else payload

    rewrite(path, sort)
