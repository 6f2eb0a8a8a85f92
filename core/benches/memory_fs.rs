//! What one directory of the in-memory filesystem costs as it grows: N small files written into
//! it in name order (as a sorted import writes them), in reverse order (the worst case for its
//! sorted entry list: every write moves all the entries already there), and in a shuffled order;
//! then a read of each, and every file removed. Milliseconds for the whole batch.
//!
//! Natively: `cargo bench -p openagent-core --bench memory_fs` (scripts/bench).

use std::rc::Rc;
use std::time::Instant;

use openagent_core::runtime::VirtualRuntime;
use openagent_memenv::MemoryEnvironment;

const SIZES: [usize; 3] = [1_000, 10_000, 30_000];

fn main() {
    println!("memory_fs: one directory of N files, whole batches in ms (write, read each, remove each)");
    for n in SIZES {
        let names: Vec<String> = (0..n).map(|i| format!("/dir/file{i:06}.txt")).collect();
        // A fixed shuffle (multiplying by a number prime to n visits every index once).
        let step = (0..).map(|k| 7919 + k).find(|s| gcd(*s, n) == 1).expect("a step");
        let orders: [(&str, Vec<usize>); 3] = [
            ("in order", (0..n).collect()),
            ("reversed", (0..n).rev().collect()),
            ("shuffled", (0..n).map(|i| i * step % n).collect()),
        ];
        for (label, order) in orders {
            let env = MemoryEnvironment::new(Rc::new(VirtualRuntime::new(|_| {})));
            env.mkdir_p("/dir").expect("mkdir");
            let started = Instant::now();
            for &i in &order {
                env.write_bytes(&names[i], b"x\n").expect("write");
            }
            let written = started.elapsed();
            let started = Instant::now();
            for &i in &order {
                env.read_bytes_sync(&names[i]).expect("read");
            }
            let read = started.elapsed();
            let started = Instant::now();
            for &i in &order {
                env.remove(&names[i], false).expect("remove");
            }
            let removed = started.elapsed();
            let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
            println!(
                "memory_fs: {n:>6} files {label:<8}  write {:8.1}  read {:6.1}  remove {:8.1}",
                ms(written),
                ms(read),
                ms(removed)
            );
        }
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
