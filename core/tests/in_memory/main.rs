//! The core's tests that need an environment to work in: the tools, the session loop, subagents,
//! compaction, snapshots and the profiles, over openagent-memenv's `MemoryEnvironment`.
//!
//! That crate depends on the core, so these cannot be the core's unit tests (they would get a
//! second copy of the core's types): they are integration tests, and use only the public API.
//! One binary for all of them, so that the core is linked once. Each module is named after the
//! module of `core/src` whose behaviour it tests.
mod profiles;
mod session;
mod testing;
mod tools;
