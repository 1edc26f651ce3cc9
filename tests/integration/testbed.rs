//! A guard around `scripts/testbed`: builds an emulated destination with a known true speed (or
//! a fault on demand) and always tears it down, also when the test panics.
//!
//! ```ignore
//! let Some(tb) = Testbed::up("slow-disk", &["--rate", "20"]) else { return };
//! // ... benchmark tb.mount(), compare with tb.ceiling_mb_s() ...
//! ```
//!
//! Testbeds share the machine: any number may be up at once, but a test that measures rates or
//! counts system-wide resources takes [`exclusive()`] first, and then no other testbed is up
//! while it runs. A thread holding `exclusive()` may bring up its own testbeds, on that thread.

#![allow(dead_code)] // Not every test uses every accessor.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Condvar, Mutex, MutexGuard};

use crate::support;

/// Every state directory is a temporary directory named with this prefix.
pub const DIR_PREFIX: &str = "destbench-testbed-";

/// The testbed script, `scripts/testbed` in this crate.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/testbed")
}

/// An emulated destination, torn down (`scripts/testbed down`) when dropped.
pub struct Testbed {
    kind: String,
    mount: PathBuf,
    info: BTreeMap<String, String>,
    /// The rate the destination is held to, MB/s (10^6 bytes/s); changes with `set_rate`.
    ceiling: Mutex<Option<f64>>,
    /// The state directory (sockets, pid files, images, the mount point). `None` once torn
    /// down or kept for inspection.
    dir: Option<tempfile::TempDir>,
    /// Keeps `exclusive()` waiting while this testbed is up. Dropped after `down` has run.
    _shared: SharedUse,
}

impl Testbed {
    /// Brings up a destination of `kind` (`slow-disk`, `failing-disk`, `nas`, `tmpfs`,
    /// `readonly`, `full`, `noperm`) with the script's extra options, e.g.
    /// `&["--rate", "20", "--fs", "xfs"]` or `&["--link", "100mbit"]`.
    ///
    /// Returns `None` after `support::skip` when not root or a needed program is missing (a
    /// failure under CI). Panics when the script itself fails: with root and the packages
    /// present, that is a real failure.
    /// [`Testbed::up`] with the machine to this test alone (see [`exclusive`]): for tests that
    /// time the destination. The testbed goes down before the exclusivity ends.
    pub fn up_alone(kind: &str, args: &[&str]) -> Option<(Exclusive, Testbed)> {
        let alone = exclusive();
        Some((alone, Testbed::up(kind, args)?))
    }

    pub fn up(kind: &str, args: &[&str]) -> Option<Testbed> {
        if !support::require_root_and(&programs(kind, args)) {
            return None;
        }
        if matches!(kind, "slow-disk" | "failing-disk" | "nas") && !Path::new("/dev/fuse").exists()
        {
            support::skip("needs /dev/fuse (FUSE)");
            return None;
        }
        let shared = SharedUse::acquire();
        let dir = tempfile::Builder::new()
            .prefix(DIR_PREFIX)
            .tempdir()
            .expect("creating the testbed state directory");
        let out = Command::new(script())
            .arg("up")
            .arg(kind)
            .arg(dir.path())
            .args(args)
            .output()
            .expect("running scripts/testbed");
        if !out.status.success() {
            // A failed `up` has already cleaned up after itself.
            panic!(
                "scripts/testbed up {kind} {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        let info = parse_info(&String::from_utf8_lossy(&out.stdout));
        let mount = PathBuf::from(info.get("mount").expect("`up` printed no mount="));
        let ceiling = parse_ceiling(
            info.get("ceiling_mb_s")
                .expect("`up` printed no ceiling_mb_s="),
        );
        Some(Testbed {
            kind: kind.to_owned(),
            mount,
            info,
            ceiling: Mutex::new(ceiling),
            dir: Some(dir),
            _shared: shared,
        })
    }

    /// The destination's mount point (`DIR/mnt`).
    pub fn mount(&self) -> &Path {
        &self.mount
    }

    /// The state directory the script owns.
    pub fn dir(&self) -> &Path {
        self.dir.as_ref().expect("testbed already down").path()
    }

    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// The true ceiling the testbed set, in MB/s (10^6 bytes/s): the disk's rate, or the nas
    /// link's raw rate. `None` when the kind has none (tmpfs...) or no rate was set.
    pub fn ceiling_mb_s(&self) -> Option<f64> {
        *self.ceiling.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Any `key=value` the script printed on `up` (e.g. `device`, `netns`,
    /// `payload_ceiling_mb_s`, `free_bytes`).
    pub fn info(&self, key: &str) -> Option<&str> {
        self.info.get(key).map(String::as_str)
    }

    /// failing-disk: every request fails with EIO from now on.
    pub fn fail(&self) {
        self.control(&["fail"]);
    }

    /// failing-disk: stop failing requests (the filesystem may have given up by then).
    pub fn heal(&self) {
        self.control(&["heal"]);
    }

    /// slow-disk / failing-disk: kill the disk's server, as if the cable were pulled. I/O on
    /// the mount then fails with EIO.
    pub fn unplug(&self) {
        self.control(&["unplug"]);
    }

    /// slow-disk / failing-disk: change the rate while the disk is in use (0 = unlimited).
    /// The new rate applies to the next request.
    pub fn set_rate(&self, mb_s: f64) {
        let out = self.control(&["set-rate", &mb_s.to_string()]);
        let info = parse_info(&out);
        let ceiling = parse_ceiling(
            info.get("ceiling_mb_s")
                .expect("set-rate printed no ceiling_mb_s="),
        );
        *self.ceiling.lock().unwrap_or_else(|e| e.into_inner()) = ceiling;
    }

    /// `status`'s `key=value` lines now: what `up` printed and, with `--cache`, the cache's
    /// fill (`cache_fill_bytes`, `cache_full`, `cache_rate_now_mb_s`, `cache_watcher`).
    pub fn status(&self) -> BTreeMap<String, String> {
        parse_info(&self.control(&["status"]))
    }

    /// slow-disk / failing-disk with `--cache`: `wait-drained --timeout timeout_s`, the
    /// seconds it waited for the drain to empty the cache, or its error line.
    pub fn wait_drained(&self, timeout_s: f64) -> Result<f64, String> {
        let out = Command::new(script())
            .arg("wait-drained")
            .arg(self.dir())
            .args(["--timeout", &timeout_s.to_string()])
            .output()
            .expect("running scripts/testbed");
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_owned());
        }
        let info = parse_info(&String::from_utf8_lossy(&out.stdout));
        assert_eq!(
            info.get("cache_fill_bytes").map(String::as_str),
            Some("0"),
            "wait-drained succeeded: the cache is empty"
        );
        Ok(info
            .get("waited_s")
            .expect("wait-drained prints waited_s=")
            .parse()
            .expect("waited_s is a number"))
    }

    /// Tears down now, reporting failure (Drop can only print it).
    pub fn down(mut self) -> Result<(), String> {
        self.teardown()
    }

    fn control(&self, args: &[&str]) -> String {
        let out = Command::new(script())
            .arg(args[0])
            .arg(self.dir())
            .args(&args[1..])
            .output()
            .expect("running scripts/testbed");
        assert!(
            out.status.success(),
            "scripts/testbed {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn teardown(&mut self) -> Result<(), String> {
        let Some(dir) = self.dir.take() else {
            return Ok(());
        };
        let result = Command::new(script()).arg("down").arg(dir.path()).output();
        let err = match result {
            Ok(out) if out.status.success() => return Ok(()), // `down` removed the directory.
            Ok(out) => String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            Err(e) => format!("cannot run scripts/testbed: {e}"),
        };
        // Something may still be mounted inside: deleting the directory recursively would
        // then delete through the mount, so leave it for a person to look at.
        let path = dir.keep();
        Err(format!(
            "scripts/testbed down {} failed: {err}",
            path.display()
        ))
    }
}

impl Drop for Testbed {
    fn drop(&mut self) {
        // Never panic here: this also runs while a failed test unwinds.
        if let Err(e) = self.teardown() {
            eprintln!("{e}");
        }
    }
}

impl std::fmt::Debug for Testbed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Testbed")
            .field("kind", &self.kind)
            .field("mount", &self.mount)
            .field("ceiling_mb_s", &self.ceiling_mb_s())
            .finish()
    }
}

/// The programs a kind needs, so a missing package is a clean skip rather than a failed `up`.
fn programs(kind: &str, args: &[&str]) -> Vec<&'static str> {
    let fs = args
        .iter()
        .position(|a| *a == "--fs")
        .and_then(|i| args.get(i + 1))
        .copied();
    let mut p = vec!["mount", "umount", "findmnt"];
    match kind {
        "slow-disk" | "failing-disk" => {
            p.extend(["nbdkit", "nbdfuse", "losetup", "fusermount3"]);
            if args.contains(&"--cache") {
                p.push("python3"); // the cache's watcher, scripts/testbed-cache
            }
            p.push(match fs {
                Some("btrfs") => "mkfs.btrfs",
                Some("xfs") => "mkfs.xfs",
                _ => "mkfs.ext4",
            });
        }
        "nas" => p.extend([
            "ip",
            "tc",
            "sshd",
            "ssh",
            "ssh-keygen",
            "sshfs",
            "nsenter",
            "unshare",
            "fusermount3",
        ]),
        "full" => p.extend(["losetup", "mkfs.ext4"]),
        "noperm" => p.push("chattr"),
        _ => {}
    }
    p
}

fn parse_info(stdout: &str) -> BTreeMap<String, String> {
    stdout
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect()
}

fn parse_ceiling(v: &str) -> Option<f64> {
    if v == "unknown" {
        return None;
    }
    Some(
        v.parse()
            .unwrap_or_else(|_| panic!("ceiling_mb_s={v} is not a number")),
    )
}

// --- sharing the machine between tests -------------------------------------------------------

struct Gate {
    state: Mutex<GateState>,
    cv: Condvar,
}

struct GateState {
    /// Testbeds up outside an exclusive section.
    shared: usize,
    exclusive: bool,
}

static GATE: Gate = Gate {
    state: Mutex::new(GateState {
        shared: 0,
        exclusive: false,
    }),
    cv: Condvar::new(),
};

thread_local! {
    static IN_EXCLUSIVE: Cell<bool> = const { Cell::new(false) };
}

fn gate() -> MutexGuard<'static, GateState> {
    // A test that panicked while holding the lock left consistent state behind (every
    // update is a single assignment), so poisoning is ignored.
    GATE.state.lock().unwrap_or_else(|e| e.into_inner())
}

/// Held while a timing-sensitive or system-counting test runs: waits until no other testbed is
/// up and keeps others from coming up until dropped. Testbeds brought up on this thread while
/// it is held do not wait.
#[must_use]
pub struct Exclusive {
    // Tied to the thread whose flag it set.
    _not_send: std::marker::PhantomData<*const ()>,
}

pub fn exclusive() -> Exclusive {
    let mut st = gate();
    while st.exclusive || st.shared > 0 {
        st = GATE.cv.wait(st).unwrap_or_else(|e| e.into_inner());
    }
    st.exclusive = true;
    IN_EXCLUSIVE.with(|f| f.set(true));
    Exclusive {
        _not_send: std::marker::PhantomData,
    }
}

impl Drop for Exclusive {
    fn drop(&mut self) {
        IN_EXCLUSIVE.with(|f| f.set(false));
        gate().exclusive = false;
        GATE.cv.notify_all();
    }
}

/// One testbed's claim on the machine (none inside an exclusive section, which covers it).
struct SharedUse {
    counted: bool,
}

impl SharedUse {
    fn acquire() -> SharedUse {
        if IN_EXCLUSIVE.with(Cell::get) {
            return SharedUse { counted: false };
        }
        let mut st = gate();
        // Readers never wait for readers, so a test may hold several testbeds at once.
        while st.exclusive {
            st = GATE.cv.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        st.shared += 1;
        SharedUse { counted: true }
    }
}

impl Drop for SharedUse {
    fn drop(&mut self) {
        if self.counted {
            gate().shared -= 1;
            GATE.cv.notify_all();
        }
    }
}
