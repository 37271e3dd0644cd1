//! How long a forge's rate limit makes `publish` wait: the same reader of
//! `Retry-After` and `x-ratelimit-*` as the targets and judges
//! ([`crate::client::rate_limits`]), the forges' own defaults, and the
//! sentence when the wait is over `--max-wait`.
//!
//! A forge that asks for a wait of at least 1 s gets it; an asked wait
//! below that (`Retry-After: 0`) is no hint. Without a hint, an exhausted
//! window (`x-ratelimit-remaining: 0` on GitHub, `ratelimit-remaining: 0`
//! on GitLab) waits for its reset (1 s when it has passed, 60 s when none
//! is sent), and any other 429 — or a GitHub 403 naming a secondary rate
//! limit — waits 60 s, as GitHub's documentation asks. At most three
//! waits per call, each at most `--max-wait`.

use std::time::Duration;

use super::PublishError;
use crate::client::rate_limits::RateLimits;
use crate::run::retry::wait_too_long;

/// The shortest asked wait taken as a hint.
const FLOOR: Duration = Duration::from_secs(1);
/// The wait without a hint.
const NO_HINT: Duration = Duration::from_secs(60);
/// Waits per call before giving up.
pub const MAX_WAITS: u32 = 3;

/// How long to wait before asking again, or `None` when the answer is not
/// a rate limit. `throttled`: a 429, or a refusal that names a rate limit.
pub fn wait(limits: &RateLimits, throttled: bool) -> Option<Duration> {
    if let Some(asked) = limits.wait.filter(|w| *w >= FLOOR) {
        return Some(asked);
    }
    let exhausted = limits
        .windows
        .iter()
        .filter(|w| w.exhausted())
        .map(|w| w.reset.map_or(NO_HINT, |r| r.max(FLOOR)))
        .max();
    exhausted.or(throttled.then_some(NO_HINT))
}

/// Whether to wait `asked` after `waits` waits, or the refusal: over
/// `max_wait` (naming both), or out of waits.
///
/// # Errors
/// [`PublishError::RateLimited`] with the sentence.
pub fn may_wait(
    forge: &str,
    asked: Duration,
    waits: u32,
    max_wait: Duration,
) -> Result<(), PublishError> {
    if asked > max_wait {
        return Err(PublishError::RateLimited(wait_too_long(
            &format!("{forge}'s rate limit"),
            asked,
            max_wait,
        )));
    }
    if waits >= MAX_WAITS {
        return Err(PublishError::RateLimited(format!(
            "{forge}'s rate limit still refused after {MAX_WAITS} waits"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    fn limits(pairs: &[(&str, &str)]) -> RateLimits {
        let now = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        RateLimits::read(
            &|name| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            },
            now,
        )
    }

    #[test]
    fn forge_waits() {
        type Row<'a> = (&'a [(&'a str, &'a str)], bool, Option<u64>);
        let rows: &[Row] = &[
            (&[], false, None),
            (&[], true, Some(60)),
            (&[("retry-after", "7")], true, Some(7)),
            // a zero is no hint: the forge's own wait
            (&[("retry-after", "0")], true, Some(60)),
            (&[("retry-after", "0")], false, None),
            (
                &[
                    ("x-ratelimit-remaining", "0"),
                    ("x-ratelimit-reset", "1700000030"),
                ],
                false,
                Some(30),
            ),
            (
                &[
                    ("x-ratelimit-remaining", "0"),
                    ("x-ratelimit-reset", "1699999000"),
                ],
                false,
                Some(1),
            ),
            (&[("ratelimit-remaining", "0")], false, Some(60)),
            (
                &[
                    ("ratelimit-remaining", "5"),
                    ("ratelimit-reset", "1700000030"),
                ],
                false,
                None,
            ),
        ];
        for (pairs, throttled, want) in rows {
            let got = wait(&limits(pairs), *throttled).map(|d| d.as_secs());
            assert_eq!(got, *want, "{pairs:?} {throttled}");
        }
    }

    #[test]
    fn refusals_name_the_wait_and_the_limit() {
        let max = Duration::from_secs(120);
        assert!(may_wait("GitHub", Duration::from_secs(120), 0, max).is_ok());
        let Err(PublishError::RateLimited(text)) =
            may_wait("GitHub", Duration::from_secs(86400), 0, max)
        else {
            panic!("not refused");
        };
        assert_eq!(
            text,
            "GitHub's rate limit asked for a wait of 86400 s, longer than the longest wait allowed (--max-wait 120 s), so digline did not wait"
        );
        let Err(PublishError::RateLimited(text)) =
            may_wait("GitLab", Duration::from_secs(5), 3, max)
        else {
            panic!("not refused");
        };
        assert_eq!(text, "GitLab's rate limit still refused after 3 waits");
    }
}
