//! One quota shared by every process on a machine that calls with the
//! same key at the same `--rate`: a small token bucket in a file, locked
//! while a process takes its turn.
//!
//! Several suites on one runner, each `--rate 20` against one 20-rpm key,
//! each believe they own the quota, and together draw twice its rate in
//! 429s. With a shared bucket they take their turns from one grid: the
//! file (`digline-quota-<id>`, in a folder the processes agree on: the
//! caller passes `$RUNNER_TEMP` or the system's temporary folder) holds
//! when the next request may start and, for a `tpm` limit, when the
//! minute began and how many tokens the processes together have spent.
//! `<id>` is a hash of the endpoints, the keys' hashes (never a key) and
//! the rate, so processes share a bucket only when they share a key and a
//! quota. Times are the wall clock's (an `Instant` means nothing to
//! another process).
//!
//! A bucket that cannot be opened or locked (a read-only folder) is not
//! the run's failure: the process paces alone, as without sharing. The
//! bucket is a workspace file like any other (`host::trust`): the caller
//! checks it before sharing, and every turn opens only a regular file in
//! the bucket's folder — a symbolic link that leads out of it (or
//! nowhere), or a file swapped for a link after it was resolved, is
//! neither read nor written, and the process paces alone.

use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::quota::Quota;
use crate::core::identity::sha256_hex;

/// The bucket's state, as the file holds it (one line of three numbers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct State {
    /// When the next request may start, ns since the epoch (0: now).
    next_ns: u128,
    /// When token counting began, ns since the epoch (0: not yet).
    start_ns: u128,
    /// Tokens spent by every process since `start_ns`.
    tokens: u64,
}

impl State {
    fn parse(text: &str) -> State {
        let mut parts = text.split_whitespace().map(str::parse::<u128>);
        match (parts.next(), parts.next(), parts.next()) {
            (Some(Ok(next_ns)), Some(Ok(start_ns)), Some(Ok(tokens))) => State {
                next_ns,
                start_ns,
                tokens: u64::try_from(tokens).unwrap_or(u64::MAX),
            },
            _ => State::default(),
        }
    }

    fn text(self) -> String {
        format!("{} {} {}\n", self.next_ns, self.start_ns, self.tokens)
    }
}

/// The turn rule, given the state and the clock: the wait before the next
/// call may start (zero: it takes its turn now, and the state moves on).
/// `tokens` spent since the last turn are added first.
///
/// A file dated ahead of what any process taking turns could have written
/// (a next turn more than one turn away, token counting begun in the
/// future: a clock set wrong, or a file written by hand) is not believed:
/// the bucket starts again from now, so it can never hold a run for a day.
fn turn(state: &mut State, quota: Quota, now_ns: u128, tokens: u64) -> Duration {
    let every_ns = quota
        .requests_per_minute
        .map_or(0, |rpm| (60e9 / rpm) as u128);
    if state.start_ns > now_ns || state.next_ns > now_ns.saturating_add(every_ns) {
        *state = State::default();
    }
    if state.start_ns == 0 {
        state.start_ns = now_ns;
    }
    state.tokens = state.tokens.saturating_add(tokens);
    if let Some(tpm) = quota.tokens_per_minute {
        let elapsed = (now_ns.saturating_sub(state.start_ns)) as f64 / 1e9;
        let over = state.tokens as f64 - tpm * elapsed / 60.0;
        if over > 0.0 {
            return Duration::from_secs_f64(over * 60.0 / tpm);
        }
    }
    if let Some(rpm) = quota.requests_per_minute {
        let every = (60e9 / rpm) as u128;
        if state.next_ns > now_ns {
            return Duration::from_nanos(u64::try_from(state.next_ns - now_ns).unwrap_or(u64::MAX));
        }
        // Late by less than a turn: keep the grid; idle longer: no burst banked.
        let base = if state.next_ns > 0 && now_ns - state.next_ns < every {
            state.next_ns
        } else {
            now_ns
        };
        state.next_ns = base + every;
    }
    Duration::ZERO
}

/// One endpoint however it is spelled, for the bucket's identity: the
/// provider's name if any (`openai@`), then `host:port` — the host in lower
/// case, every loopback spelling (`localhost`, `127.0.0.1`, `[::1]`) as
/// `loopback`, the scheme's port when none is written. The scheme and the
/// path are left out: a quota belongs to the server, whatever route or
/// trailing slash a suite names.
pub fn endpoint_key(spelled: &str) -> String {
    let spelled = spelled.trim();
    let (kind, rest) = match spelled.split_once('@') {
        Some((kind, rest))
            if !kind.contains("://") && !kind.contains(':') && !kind.contains('/') =>
        {
            (format!("{kind}@"), rest)
        }
        _ => (String::new(), spelled),
    };
    let with_scheme = if rest.contains("://") {
        rest.to_string()
    } else {
        format!("http://{rest}")
    };
    let Ok(url) = url::Url::parse(&with_scheme) else {
        return format!("{kind}{}", rest.to_lowercase());
    };
    let host = match url.host() {
        Some(url::Host::Domain(d)) if d.trim_end_matches('.') == "localhost" => {
            "loopback".to_string()
        }
        Some(url::Host::Ipv4(ip)) if ip.is_loopback() => "loopback".to_string(),
        Some(url::Host::Ipv6(ip)) if ip.is_loopback() => "loopback".to_string(),
        Some(url::Host::Ipv6(ip)) => format!("[{ip}]"),
        Some(host) => host.to_string().trim_end_matches('.').to_string(),
        None => return format!("{kind}{}", rest.to_lowercase()),
    };
    match url.port_or_known_default() {
        Some(port) => format!("{kind}{host}:{port}"),
        None => format!("{kind}{host}"),
    }
}

/// A quota's bucket shared through a file.
#[derive(Debug)]
pub struct SharedQuota {
    path: PathBuf,
    quota: Quota,
}

impl SharedQuota {
    /// The bucket in `dir` of the calls made with `identity` (endpoints as
    /// [`endpoint_key`] spells them, and key hashes, never a key) at
    /// `quota` (a rate however it was written: `600` is `600rpm`).
    pub fn new(dir: &Path, identity: &str, quota: Quota) -> SharedQuota {
        let id = sha256_hex(
            format!(
                "{identity}\n{:?}\n{:?}",
                quota.requests_per_minute, quota.tokens_per_minute
            )
            .as_bytes(),
            8,
        );
        SharedQuota {
            path: dir.join(format!("digline-quota-{id}")),
            quota,
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Take a turn, adding `tokens` spent since this process's last turn:
    /// the wait before trying again (zero: the turn is taken). `None` when
    /// the file cannot be used (the caller paces alone).
    pub fn turn(&self, tokens: u64) -> Option<Duration> {
        let mut file = self.open()?;
        fs4::FileExt::lock(&file).ok()?;
        let mut text = String::new();
        let read = file.read_to_string(&mut text).is_ok();
        let mut state = if read {
            State::parse(&text)
        } else {
            State::default()
        };
        let now_ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .ok()?
            .as_nanos();
        let wait = turn(&mut state, self.quota, now_ns, tokens);
        let written = file
            .set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(state.text().as_bytes()));
        let _ = fs4::FileExt::unlock(&file);
        written.ok()?;
        Some(wait)
    }

    /// The bucket, opened for reading and writing (made when absent), or
    /// `None` when it is a link that leads out of its folder or nowhere, or
    /// when what was opened is not the regular file the path resolved to
    /// (a link swapped in between): writing through a link could overwrite
    /// any file the process may write.
    fn open(&self) -> Option<std::fs::File> {
        let folder = self.path.parent()?.canonicalize().ok()?;
        let real = match std::fs::symlink_metadata(&self.path) {
            Ok(_) => self.path.canonicalize().ok()?,
            Err(_) => folder.join(self.path.file_name()?),
        };
        if real.parent() != Some(folder.as_path()) {
            return None;
        }
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&real)
            .ok()?;
        let there = std::fs::symlink_metadata(&real).ok()?;
        if !there.is_file() {
            return None;
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let opened = file.metadata().ok()?;
            if (opened.dev(), opened.ino()) != (there.dev(), there.ino()) {
                return None;
            }
        }
        Some(file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u128 = 1_000_000_000;

    fn rpm(n: f64) -> Quota {
        Quota {
            requests_per_minute: Some(n),
            tokens_per_minute: None,
        }
    }

    #[test]
    fn turns_keep_one_grid_and_bank_no_burst() {
        let mut state = State::default();
        let t0 = 100 * S;
        assert_eq!(turn(&mut state, rpm(60.0), t0, 0), Duration::ZERO);
        assert_eq!(turn(&mut state, rpm(60.0), t0, 0), Duration::from_secs(1));
        assert_eq!(
            turn(&mut state, rpm(60.0), t0 + S / 2, 0),
            Duration::from_millis(500)
        );
        assert_eq!(turn(&mut state, rpm(60.0), t0 + S, 0), Duration::ZERO);
        // Idle for long: start again from now.
        assert_eq!(turn(&mut state, rpm(60.0), t0 + 100 * S, 0), Duration::ZERO);
        assert_eq!(state.next_ns, t0 + 101 * S);
        assert_eq!(State::parse(&state.text()), state);
        assert_eq!(State::parse("garbage"), State::default());
    }

    /// A bucket dated a day ahead (a wrong clock, a file written by hand)
    /// never holds a run for a day: it starts again from now.
    #[test]
    fn a_bucket_dated_ahead_is_not_believed() {
        let t0 = 1_000 * S;
        let mut state = State {
            next_ns: t0 + 86_400 * S,
            start_ns: 0,
            tokens: 0,
        };
        assert_eq!(turn(&mut state, rpm(60.0), t0, 0), Duration::ZERO);
        assert_eq!(state.next_ns, t0 + S);
        // Honest: one turn ahead is waited for.
        assert_eq!(turn(&mut state, rpm(60.0), t0, 0), Duration::from_secs(1));
        let tpm = Quota {
            requests_per_minute: None,
            tokens_per_minute: Some(6000.0),
        };
        let mut state = State {
            next_ns: 0,
            start_ns: t0 + 86_400 * S,
            tokens: 1_000_000,
        };
        assert_eq!(turn(&mut state, tpm, t0, 0), Duration::ZERO);
        assert_eq!((state.start_ns, state.tokens), (t0, 0));
    }

    /// One endpoint, one bucket, however it is spelled.
    #[test]
    fn one_endpoint_however_spelled_is_one_bucket() {
        let same = [
            "http://127.0.0.1:4000",
            "http://localhost:4000/v1",
            "http://LOCALHOST:4000/v1/",
            "127.0.0.1:4000",
            "http://[::1]:4000/chat/completions",
        ];
        for spelled in same {
            assert_eq!(endpoint_key(spelled), "loopback:4000", "{spelled}");
        }
        assert_eq!(
            endpoint_key("openai@https://API.openai.com/v1"),
            endpoint_key("openai@https://api.openai.com:443")
        );
        assert_eq!(
            endpoint_key("openai@https://api.openai.com"),
            "openai@api.openai.com:443"
        );
        assert_ne!(
            endpoint_key("http://127.0.0.1:4000"),
            endpoint_key("http://127.0.0.1:4001")
        );
        assert_ne!(
            endpoint_key("openai@http://127.0.0.1:4000"),
            endpoint_key("anthropic@http://127.0.0.1:4000")
        );
        // A rate however written: 600 is 600rpm.
        let dir = std::path::Path::new("/q");
        let bucket = |rate: &str| SharedQuota::new(dir, "e", Quota::parse(rate).unwrap());
        assert_eq!(bucket("600").path(), bucket("600rpm").path());
        assert_eq!(bucket("600.0").path(), bucket(" 600rpm").path());
        assert_eq!(
            bucket("600rpm,90000tpm").path(),
            bucket("90000tpm,600").path()
        );
        assert_ne!(bucket("600").path(), bucket("601").path());
    }

    #[test]
    fn tokens_of_every_process_count_against_one_minute() {
        let quota = Quota {
            requests_per_minute: None,
            tokens_per_minute: Some(6000.0),
        };
        let mut state = State::default();
        let t0 = 5 * S;
        assert_eq!(turn(&mut state, quota, t0, 0), Duration::ZERO);
        // Two processes report 150 and 100 tokens: 250 at 100 a second.
        assert_eq!(
            turn(&mut state, quota, t0, 150),
            Duration::from_millis(1500)
        );
        assert_eq!(
            turn(&mut state, quota, t0, 100),
            Duration::from_millis(2500)
        );
        assert_eq!(turn(&mut state, quota, t0 + 5 * S / 2, 0), Duration::ZERO);
    }

    /// A bucket that is a link out of its folder is neither read nor
    /// written (the file it points at keeps its bytes); a link to a file
    /// in the folder is the bucket.
    #[cfg(unix)]
    #[test]
    fn a_bucket_linked_out_of_its_folder_is_neither_read_nor_written() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("quota");
        std::fs::create_dir_all(&folder).unwrap();
        let bucket = SharedQuota::new(&folder, "e", rpm(60.0));
        let precious = dir.path().join("precious.txt");
        std::fs::write(&precious, "keep me\n").unwrap();
        std::os::unix::fs::symlink("../precious.txt", bucket.path()).unwrap();
        assert_eq!(bucket.turn(0), None);
        assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep me\n");
        // A link to nowhere: nothing is made where it points.
        std::fs::remove_file(bucket.path()).unwrap();
        std::os::unix::fs::symlink("../made.txt", bucket.path()).unwrap();
        assert_eq!(bucket.turn(0), None);
        assert!(!dir.path().join("made.txt").exists());
        // Inside the folder: the file it points at is the bucket.
        std::fs::remove_file(bucket.path()).unwrap();
        std::os::unix::fs::symlink("kept", bucket.path()).unwrap();
        std::fs::write(folder.join("kept"), "").unwrap();
        assert_eq!(bucket.turn(0), Some(Duration::ZERO));
        let state = State::parse(&std::fs::read_to_string(folder.join("kept")).unwrap());
        assert!(state.next_ns > 0, "{state:?}");
    }

    #[test]
    fn two_pacers_on_one_file_share_one_rate() {
        let dir = tempfile::tempdir().unwrap();
        let a = SharedQuota::new(dir.path(), "openai@h:1 key#ab", rpm(600.0));
        let b = SharedQuota::new(dir.path(), "openai@h:1 key#ab", rpm(600.0));
        let other = SharedQuota::new(dir.path(), "openai@h:1 key#cd", rpm(600.0));
        assert_eq!(a.path(), b.path());
        assert_ne!(a.path(), other.path(), "another key, another bucket");
        assert_eq!(a.turn(0), Some(Duration::ZERO));
        let wait = b.turn(0).unwrap();
        assert!(
            wait > Duration::from_millis(50),
            "{wait:?}: b waits for a's turn"
        );
        assert_eq!(other.turn(0), Some(Duration::ZERO));
        // Threads standing for processes: 10 turns at 600 rpm take ≈ 0.9 s.
        let started = std::time::Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| {
                    let mine = SharedQuota::new(dir.path(), "openai@h:1 key#ef", rpm(600.0));
                    for _ in 0..5 {
                        while let Some(wait) = mine.turn(0).filter(|w| !w.is_zero()) {
                            std::thread::sleep(wait);
                        }
                    }
                });
            }
        });
        let took = started.elapsed();
        assert!(took >= Duration::from_millis(850), "{took:?}");
    }
}
