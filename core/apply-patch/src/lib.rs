//! # openagent-apply-patch
//!
//! The v4a patch format that OpenAI's models are trained to edit files with (the coding-agent loop
//! spec, Appendix A), as pure functions over text: [`parse`] turns a patch into [`Op`]s (add,
//! delete, or update and move a file), and [`apply_chunks`] computes an updated file's new content
//! from its hunks, finding each one exactly first and then ever more forgivingly (trailing
//! whitespace, indentation, typographic punctuation), as models retype code.
//!
//! It must not depend on anything of OpenAgent, nor do I/O or anything async: it never sees a
//! file, only the text it is given, so it builds and passes its tests on `wasm32-unknown-unknown`.
//! Reading and writing the files a patch names, all of them or none, is the `apply_patch` tool's
//! job in `openagent-core`. codex's conformance scenarios run against this crate in
//! `tests/codex_scenarios.rs`.
//!
//! ```
//! use openagent_apply_patch::{apply_chunks, parse, Op};
//!
//! let patch = "*** Begin Patch\n*** Update File: hello.py\n@@ def greet():\n-    print(\"hi\")\n+    print(\"hello\")\n*** End Patch";
//! let ops = parse(patch)?;
//! let Op::Update { path, chunks, .. } = &ops[0] else { unreachable!() };
//! assert_eq!(path, "hello.py");
//! // The file's text differs in indentation: a fuzzy pass still finds the hunk.
//! let new = apply_chunks("def greet():\n\tprint(\"hi\")\n", chunks).expect("the hunk applies");
//! assert_eq!(new, "def greet():\n    print(\"hello\")\n");
//! # Ok::<(), openagent_apply_patch::ParseError>(())
//! ```

mod apply;
mod parse;
mod seek;
pub mod text;

pub use apply::{apply_chunks, ChunkError, Miss};
pub use parse::{parse, Chunk, Op, ParseError, Tag};
