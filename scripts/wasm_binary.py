"""The few pieces of the WebAssembly binary format the build scripts read and write
(scripts/order-functions, scripts/wasm-size-report, scripts/finish-glue): sections, the imports,
the code section's bodies and the `name` section's function names."""


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


def import_section(entries):
    """An import section of (module, name, descriptor) entries."""
    out = bytearray(uleb(len(entries)))
    for module, name, descriptor in entries:
        for text in (module.encode(), name.encode()):
            out += uleb(len(text)) + text
        out += descriptor
    return section(2, bytes(out))


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


def copy_section(kind, source, target):
    """Gives the module at `target` the section `kind` of the one at `source`, in place of its own
    (which must be there, and be the only one)."""
    (payload,) = [payload for k, payload in sections(open(source, "rb").read()) if k == kind]
    data = open(target, "rb").read()
    out, replaced = bytearray(data[:8]), 0
    for k, own in sections(data):
        replaced += k == kind
        out += section(k, payload if k == kind else own)
    if replaced != 1:
        raise SystemExit(f"{target} has {replaced} sections of kind {kind}, not one")
    open(target, "wb").write(out)
