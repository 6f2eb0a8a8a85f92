//! seccomp and Landlock on the network: with the network off a confined command reaches no
//! listener, even on loopback, while Unix sockets keep working; with the network on, and in
//! full-access, it does. Each client is run where it is installed, and skipped with a reason
//! where it is not.

mod confine;

use std::io::{Read, Write};
use std::net::TcpListener;

use confine::{have, write, write_with_network, Place};
use openagent_core::sandbox::{Network, SandboxPolicy};

/// A listener on 127.0.0.1 that answers every connection with a small HTTP response; its port.
fn listener() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback listener");
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut request = [0u8; 1024];
            let _ = stream.read(&mut request);
            let _ = stream.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 7\r\n\r\nreached");
        }
    });
    port
}

/// Each client's command to the listener on `port`, printing `reached` when it got through.
fn clients(port: u16) -> Vec<(&'static str, String)> {
    // bash's own /dev/tcp: no client program at all.
    let bash = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3");
    let mut clients = vec![("bash /dev/tcp", bash)];
    if have("curl") {
        clients.push(("curl", format!("curl -sS --max-time 5 http://127.0.0.1:{port}/")));
    }
    if have("python3") {
        let script = format!(
            "import socket; s = socket.create_connection(('127.0.0.1', {port}), timeout=5); s.sendall(b'GET / HTTP/1.0\\r\\n\\r\\n'); print('reached' if b'reached' in s.recv(1024) else 'no')"
        );
        clients.push(("python3", format!("python3 -c \"{script}\"")));
    }
    if have("nc") {
        clients.push(("nc", format!("printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 5 127.0.0.1 {port}")));
    }
    clients
}

#[test]
fn with_the_network_off_no_client_reaches_a_loopback_listener() {
    let Some(place) = Place::new() else { return };
    let port = listener();
    for (client, command) in clients(port) {
        let result = place.run(Some(write()), &command);
        assert_ne!(result.exit_code, 0, "{client}: {result:?}");
        assert!(!result.stdout.contains("reached"), "{client}: {result:?}");
        let denied = result.sandbox_denied.unwrap_or_default();
        assert!(denied.starts_with("a network connection: the network is off"), "{client}: {denied} {:?}", result.stderr);
    }
}

#[test]
fn with_the_network_on_and_in_full_access_clients_reach_it() {
    let Some(place) = Place::new() else { return };
    let port = listener();
    for (client, command) in clients(port) {
        for policy in [write_with_network(), SandboxPolicy::full_access()] {
            let result = place.run(Some(policy.clone()), &command);
            assert!(result.stdout.contains("reached"), "{client} with {}: {result:?}", policy.describe());
        }
    }
}

#[test]
fn with_the_network_off_ping_gets_no_raw_socket() {
    let Some(place) = Place::new() else { return };
    if !have("ping") {
        return;
    }
    let result = place.run(Some(write()), "ping -c 1 -W 1 127.0.0.1");
    assert_ne!(result.exit_code, 0, "{result:?}");
    let reached = place.run(Some(SandboxPolicy::full_access()), "ping -c 1 -W 1 127.0.0.1");
    assert_eq!(reached.exit_code, 0, "ping works unconfined: {reached:?}");
}

#[test]
fn unix_sockets_and_socketpairs_work_with_the_network_off() {
    let Some(place) = Place::new() else { return };
    if !have("python3") {
        return;
    }
    let script = "import socket; a, b = socket.socketpair(); a.sendall(b'pair'); print(b.recv(4).decode()); \
                  s = socket.socket(socket.AF_UNIX); s.bind('sock'); s.listen(); print('unix')";
    let result = place.run(Some(write()), &format!("python3 -c \"{script}\""));
    assert_eq!(result.stdout, "pair\nunix\n", "{result:?}");
}

#[test]
fn with_an_allow_list_only_its_hosts_are_reached_and_only_through_the_proxy() {
    let Some(place) = Place::new() else { return };
    let port = listener();
    let policy = SandboxPolicy { network: Network::Hosts(vec!["127.0.0.1".into()]), ..write() };
    if have("curl") {
        let through = place.run(Some(policy.clone()), &format!("curl -sSf --max-time 5 http://127.0.0.1:{port}/"));
        assert_eq!(through.stdout, "reached", "an allowed host, through the proxy: {through:?}");
        let tunnel = place.run(Some(policy.clone()), &format!("curl -sSf --max-time 5 -p http://127.0.0.1:{port}/"));
        assert_eq!(tunnel.stdout, "reached", "an allowed host, through a CONNECT tunnel: {tunnel:?}");
        let other = place.run(Some(policy.clone()), &format!("curl -sS --max-time 5 http://127.0.0.2:{port}/"));
        assert!(other.stdout.contains("127.0.0.2 is not in the sandbox's network allow-list (127.0.0.1)"), "{other:?}");
        let tunnel = place.run(Some(policy.clone()), &format!("curl -sS --max-time 5 -p http://127.0.0.2:{port}/"));
        assert_ne!(tunnel.exit_code, 0, "a host not listed, through a tunnel: {tunnel:?}");
        let denied = tunnel.sandbox_denied.clone().unwrap_or_default();
        assert!(denied.starts_with("a network connection to a host outside the allow-list (127.0.0.1)"), "{denied}: {tunnel:?}");
    }
    let direct = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let result = place.run(Some(policy.clone()), &direct);
    assert!(!result.stdout.contains("connected"), "a direct connection passed by the proxy: {result:?}");
    let denied = result.sandbox_denied.unwrap_or_default();
    assert!(denied.starts_with("a network connection that did not go through the allow-list's proxy"), "{denied}");
    if have("python3") {
        let udp = "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM); print('udp')";
        let result = place.run(Some(policy.clone()), &format!("python3 -c \"{udp}\""));
        assert!(!result.stdout.contains("udp"), "a UDP socket (DNS of its own): {result:?}");
    }
    let check = openagent_host::local_env::check_sandbox(&policy, &place.work);
    assert_eq!(check, Ok(()));
}
