//! Just enough RFC 3986 to place `$id`s and resolve `$ref`s inside one schema document: reference
//! resolution (section 5.2), fragment splitting and the JSON Pointer / percent decoding of fragments.
//! Nothing is ever fetched; an absolute URI is only a name to look up among the document's resources.

/// The base URI of a document whose root has no `$id`. Hierarchical, so relative `$id`s and `$ref`s
/// such as `other.json` still resolve (to `json-schema:///other.json`).
pub(super) const DEFAULT_BASE: &str = "json-schema:///";

/// A URI reference split into its five components (RFC 3986, appendix B).
struct Parts<'a> {
    scheme: Option<&'a str>,
    authority: Option<&'a str>,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

fn parse(uri: &str) -> Parts<'_> {
    let (rest, fragment) = match uri.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (uri, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    // A scheme is a non-empty run before the first ':' that comes before any '/'.
    let (scheme, rest) = match rest.find([':', '/']) {
        Some(i) if i > 0 && rest.as_bytes()[i] == b':' => (Some(&rest[..i]), &rest[i + 1..]),
        _ => (None, rest),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            (Some(&after[..end]), &after[end..])
        }
        None => (None, rest),
    };
    Parts { scheme, authority, path, query, fragment }
}

/// Resolves `reference` against `base` (RFC 3986, section 5.2.2).
pub(super) fn resolve(base: &str, reference: &str) -> String {
    let r = parse(reference);
    let b = parse(base);
    let (scheme, authority, path, query) = if r.scheme.is_some() {
        (r.scheme, r.authority, remove_dot_segments(r.path), r.query)
    } else if r.authority.is_some() {
        (b.scheme, r.authority, remove_dot_segments(r.path), r.query)
    } else if r.path.is_empty() {
        (b.scheme, b.authority, b.path.to_owned(), r.query.or(b.query))
    } else if r.path.starts_with('/') {
        (b.scheme, b.authority, remove_dot_segments(r.path), r.query)
    } else {
        (b.scheme, b.authority, remove_dot_segments(&merge(&b, r.path)), r.query)
    };
    let mut out = String::with_capacity(base.len() + reference.len());
    if let Some(scheme) = scheme {
        out.push_str(scheme);
        out.push(':');
    }
    if let Some(authority) = authority {
        out.push_str("//");
        out.push_str(authority);
    }
    out.push_str(&path);
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    if let Some(fragment) = r.fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

fn merge(base: &Parts<'_>, path: &str) -> String {
    if base.authority.is_some() && base.path.is_empty() {
        return format!("/{path}");
    }
    // A byte search: `rfind`'s reverse searcher would be one more copy in the browser bundle.
    match base.path.bytes().rposition(|b| b == b'/') {
        Some(i) => format!("{}{path}", &base.path[..=i]),
        None => path.to_owned(),
    }
}

fn remove_dot_segments(path: &str) -> String {
    let absolute = path.starts_with('/');
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len() - 1;
    let mut out: Vec<&str> = Vec::with_capacity(segments.len());
    for (i, segment) in segments.into_iter().enumerate() {
        match segment {
            "." | ".." => {
                // The leading empty segment of an absolute path is never popped.
                if segment == ".." && out.len() > usize::from(absolute) {
                    out.pop();
                }
                // `a/b/..` means the directory `a/`, so keep the trailing slash.
                if i == last {
                    out.push("");
                }
            }
            _ => out.push(segment),
        }
    }
    out.join("/")
}

/// Splits an absolute URI into the resource it names and its fragment (without the `#`).
pub(super) fn split_fragment(uri: &str) -> (&str, &str) {
    uri.split_once('#').unwrap_or((uri, ""))
}

/// Decodes `%XX` escapes, as URI fragments carry them (`#/$defs/percent%25field`).
pub(super) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

// The two token functions are loops rather than `str::replace`, whose copies in this crate would
// cost the browser bundle about a kilobyte (the bundle is a budget, DESIGN.md).

/// Unescapes one JSON Pointer reference token (RFC 6901: `~1` is `/`, `~0` is `~`).
pub(super) fn unescape_token(token: &str) -> String {
    let mut parts = token.split('~');
    let mut out = String::from(parts.next().unwrap_or_default());
    for part in parts {
        let (unescaped, rest) = match part.as_bytes().first() {
            Some(b'1') => ("/", &part[1..]),
            Some(b'0') => ("~", &part[1..]),
            _ => ("~", part),
        };
        out.push_str(unescaped);
        out.push_str(rest);
    }
    out
}

/// Escapes a property name or index for use as a JSON Pointer reference token.
pub(super) fn escape_token(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn resolves_the_rfc_3986_examples() {
        let base = "http://a/b/c/d;p?q";
        for (reference, expected) in [
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("", "http://a/b/c/d;p?q"),
            ("..", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../../../g", "http://a/g"),
            ("g;x=1/../y", "http://a/b/c/y"),
        ] {
            assert_eq!(resolve(base, reference), expected, "resolving {reference:?}");
        }
    }

    #[test]
    fn resolves_against_urns_and_the_default_base() {
        assert_eq!(resolve("urn:uuid:1234", "#/$defs/a"), "urn:uuid:1234#/$defs/a");
        assert_eq!(resolve(DEFAULT_BASE, "other.json#x"), "json-schema:///other.json#x");
        assert_eq!(resolve(DEFAULT_BASE, "#/a"), "json-schema:///#/a");
    }

    #[test]
    fn decodes_fragments() {
        assert_eq!(percent_decode("percent%25field"), "percent%field");
        assert_eq!(percent_decode("bad%zz"), "bad%zz");
        assert_eq!(unescape_token("a~1b~0c"), "a/b~c");
        assert_eq!(escape_token("a/b~c"), "a~1b~0c");
    }

    #[test]
    fn unescapes_tokens_in_one_pass() {
        // `~01` is `~1` (not `/`), and a `~` before anything but 0 or 1 stays as it is.
        for (token, unescaped) in [("~01", "~1"), ("~~1", "~/"), ("a~", "a~"), ("~2~", "~2~"), ("", ""), ("~0~1", "~/")] {
            assert_eq!(unescape_token(token), unescaped, "{token:?}");
        }
        assert_eq!(unescape_token(&escape_token("~1/~0")), "~1/~0");
    }
}
