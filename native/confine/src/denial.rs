//! Telling, from a failed command's output, that its confinement refused it: Landlock says
//! EACCES ("Permission denied"), a read-only mount EROFS ("Read-only file system"), seccomp
//! EPERM ("Operation not permitted"), with the network off clients report the socket they could
//! not make or the host they could not reach, and a hidden key reads as missing. The text is a guess from what tools print; it
//! says what was refused and quotes the line that showed it.

use openagent_core::sandbox::{Network, READ_DENIED};

/// What the confinement refused, from a failed command's output, or `None` when nothing in it
/// looks like a refusal. `network` says whether a failed connection is the sandbox's doing;
/// `roots` names the writable roots for the message.
pub fn denial(stdout: &str, stderr: &str, network: &Network, roots: &str) -> Option<String> {
    let lines = || stderr.lines().chain(stdout.lines());
    let find = |needles: &[&str]| lines().find(|line| needles.iter().any(|needle| line.contains(needle)));
    if let Network::Hosts(hosts) = network {
        let proxy = ["not in the sandbox's network allow-list", "CONNECT tunnel failed, response 403", "403 Forbidden"];
        if let Some(line) = find(&proxy) {
            return Some(format!(
                "a network connection to a host outside the allow-list ({}): {}",
                hosts.join(", "),
                quote(line)
            ));
        }
    }
    if *network != Network::On {
        const NETWORK: [&str; 9] = [
            "Could not resolve host",
            "Couldn't connect to server",
            "Failed to connect",
            "Temporary failure in name resolution",
            "Network is unreachable",
            "Name or service not known",
            "nodename nor servname",
            "getaddrinfo",
            "socket: Operation not permitted",
        ];
        // seccomp's EPERM for the socket, or Landlock's EACCES for the connect.
        let socket_refused = |line: &&str| {
            let words = ["socket", "connect", "Socket", "/dev/tcp/", "/dev/udp/", "curl", "nc:", "wget", "http"];
            let named = words.iter().any(|word| line.contains(word));
            (line.contains("Operation not permitted") && (named || line.contains("Errno 1]")))
                || (line.contains("Permission denied") && named)
        };
        if let Some(line) = find(&NETWORK).or_else(|| lines().find(socket_refused)) {
            return Some(match network {
                Network::Hosts(_) => {
                    format!("a network connection that did not go through the allow-list's proxy ({})", quote(line))
                }
                _ => format!("a network connection: the network is off ({})", quote(line)),
            });
        }
    }
    // Tools that only the system call filter refuses, whichever words they use for EPERM.
    let forbidden_tool = |line: &&str| {
        let lower = line.to_ascii_lowercase();
        ["mount", "unshare", "nsenter", "strace", "ptrace", "gdb", "perf", "bpf", "keyctl"]
            .iter()
            .any(|tool| lower.contains(tool))
            && (lower.contains("permission denied") || lower.contains("operation not permitted"))
    };
    if let Some(line) = lines().find(forbidden_tool) {
        return Some(format!("an operation the sandbox forbids (tracing, namespaces, mounts; {})", quote(line)));
    }
    if let Some(line) = find(&["Read-only file system"]) {
        return Some(format!("a write to a path the sandbox keeps read-only ({})", quote(line)));
    }
    if let Some(line) = find(&["Permission denied"]) {
        return Some(format!("a write outside the writable roots ({roots}): {}", quote(line)));
    }
    // A hidden credential reads as missing.
    let hidden = |line: &&str| {
        line.contains("No such file or directory") && READ_DENIED.iter().any(|name| line.contains(&format!("/{name}")))
    };
    if let Some(line) = lines().find(hidden) {
        return Some(format!("a read of keys or credentials the sandbox hides ({})", quote(line)));
    }
    find(&["Operation not permitted"])
        .map(|line| format!("an operation the sandbox forbids (tracing, namespaces, mounts; {})", quote(line)))
}

/// `line`, trimmed, at most 200 characters.
fn quote(line: &str) -> String {
    let line = line.trim();
    match line.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::denial;
    use openagent_core::sandbox::Network;

    const OFF: &Network = &Network::Off;

    #[test]
    fn each_refusal_is_named_by_what_it_refused() {
        let write = denial("", "bash: /root/x: Permission denied\n", OFF, "/w, /tmp").unwrap();
        assert_eq!(write, "a write outside the writable roots (/w, /tmp): bash: /root/x: Permission denied");
        assert!(denial("", "touch: cannot touch '.git/config': Read-only file system", OFF, "/w").unwrap().contains("read-only"));
        let curl =
            denial("", "curl: (7) Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server", OFF, "/w");
        assert!(curl.unwrap().starts_with("a network connection: the network is off"));
        let python = denial("", "PermissionError: [Errno 1] Operation not permitted", OFF, "/w").unwrap();
        assert!(python.starts_with("a network connection"), "{python}");
        assert!(denial("", "unshare: unshare failed: Operation not permitted", &Network::On, "/w")
            .unwrap()
            .starts_with("an operation"));
        let mount = denial("", "mount: /tmp/x: permission denied.", OFF, "/w").unwrap();
        assert!(mount.starts_with("an operation the sandbox forbids"), "{mount}");
        assert_eq!(denial("", "curl: (7) Failed to connect", &Network::On, "/w"), None, "the network is on: not the sandbox");
        assert_eq!(denial("done", "error: no such file", OFF, "/w"), None);
        let key = denial("", "cat: /home/u/.ssh/id_rsa: No such file or directory", OFF, "/w").unwrap();
        assert!(key.starts_with("a read of keys or credentials the sandbox hides"), "{key}");
        assert_eq!(denial("", "cat: notes.md: No such file or directory", OFF, "/w"), None);
        let bash = denial("", "bash: connect: Permission denied\nbash: /dev/tcp/127.0.0.1/80: Permission denied", OFF, "/w");
        assert!(bash.unwrap().starts_with("a network connection"));
        let hosts = Network::Hosts(vec!["crates.io".into()]);
        let proxy = denial("", "curl: (56) CONNECT tunnel failed, response 403", &hosts, "/w").unwrap();
        assert!(proxy.starts_with("a network connection to a host outside the allow-list (crates.io)"), "{proxy}");
    }
}
