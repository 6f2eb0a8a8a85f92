//! What wakes a running session's driver: the one type the driver (`plan`) and the report share.

use openagent_core::session::SessionEvent;

/// What wakes a running session's driver; `T` is what comes from outside the session while it
/// runs: a line typed in the terminal, a request over `openagent serve`'s API.
pub enum Wake<T> {
    Event(SessionEvent),
    /// Time to redraw the spinner.
    Tick,
    /// SIGINT (Ctrl-C), SIGTERM or SIGHUP.
    Signal,
    /// A line typed, or a request made, while the run goes on.
    Outside(T),
}
