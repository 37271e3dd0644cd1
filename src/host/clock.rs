//! The clock: the one place digline reads the time.

use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// Now in UTC as Python's `datetime.now(UTC).isoformat()` writes it:
/// microseconds, `+00:00`, and no fraction when the microseconds are 0
/// (`2026-11-30T04:16:02.573852+00:00`).
pub fn now_iso() -> String {
    iso(OffsetDateTime::now_utc())
}

/// Seconds since the Unix epoch (for a forge's rate-limit reset time).
pub fn unix_now() -> u64 {
    u64::try_from(OffsetDateTime::now_utc().unix_timestamp()).unwrap_or(0)
}

/// A number that differs between runs (nanoseconds of the clock mixed with
/// the process id): seeds the retry jitter, which needs no more than that.
pub fn seed() -> u64 {
    let nanos = OffsetDateTime::now_utc().unix_timestamp_nanos() as u64;
    nanos ^ (u64::from(std::process::id()) << 32)
}

/// `t` (in UTC) in Python's `isoformat()` shape.
pub fn iso(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    let micros = t.microsecond();
    let base = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    );
    let _ = Rfc3339;
    if micros == 0 {
        format!("{base}+00:00")
    } else {
        format!("{base}.{micros:06}+00:00")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_matches_python() {
        let t = OffsetDateTime::from_unix_timestamp_nanos(1_796_012_162_573_852_000).unwrap();
        assert_eq!(iso(t), "2026-11-30T04:16:02.573852+00:00");
        let t = OffsetDateTime::from_unix_timestamp(1_796_012_162).unwrap();
        assert_eq!(iso(t), "2026-11-30T04:16:02+00:00");
    }
}
