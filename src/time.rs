//! ISO 8601 timestamps of the contract ("Timestamps are ISO 8601 in UTC"), without a clock.

/// A parsed timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Timestamp {
    /// Milliseconds since the Unix epoch (fractions beyond milliseconds are truncated).
    pub unix_millis: i64,
    /// Whether the text says UTC (`Z` or `+00:00`).
    pub utc: bool,
}

impl Timestamp {
    /// Whole seconds since 1970-01-01T00:00:00Z (rounded down).
    pub fn unix_seconds(&self) -> i64 {
        self.unix_millis.div_euclid(1000)
    }
}

/// The number two ASCII digits write (inlined: a timestamp has eight such pairs).
#[inline(always)]
fn two_digits(tens: u8, units: u8) -> Option<i64> {
    let (tens, units) = (tens.wrapping_sub(b'0'), units.wrapping_sub(b'0'));
    (tens < 10 && units < 10).then(|| i64::from(tens * 10 + units))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`: a date-time with an offset, as RFC 3339
/// profiles ISO 8601. Returns `None` for anything else (a date alone, no offset, an invalid date).
pub fn parse(text: &str) -> Option<Timestamp> {
    let b = text.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let y = two_digits(b[0], b[1])? * 100 + two_digits(b[2], b[3])?;
    let (mo, d) = (two_digits(b[5], b[6])?, two_digits(b[8], b[9])?);
    let (h, mi, s) = (two_digits(b[11], b[12])?, two_digits(b[14], b[15])?, two_digits(b[17], b[18])?);
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let mut i = 19;
    let mut millis = 0i64;
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        i = start;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
        for (k, &dgt) in b[start..i].iter().take(3).enumerate() {
            millis += i64::from(dgt - b'0') * [100, 10, 1][k];
        }
    }
    let (offset_minutes, utc) = match &b[i..] {
        [b'Z' | b'z'] => (0, true),
        [sign @ (b'+' | b'-'), oh1, oh2, b':', om1, om2] => {
            let oh = two_digits(*oh1, *oh2)?;
            let om = two_digits(*om1, *om2)?;
            if oh > 23 || om > 59 {
                return None;
            }
            let off = oh * 60 + om;
            (if *sign == b'-' { -off } else { off }, off == 0)
        }
        _ => return None,
    };
    let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s.min(59) - offset_minutes * 60;
    Some(Timestamp { unix_millis: secs * 1000 + millis, utc })
}

/// Formats unix seconds as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn format_unix_seconds(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Formats unix milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ` (or without fraction when whole).
pub fn format_unix_millis(millis: i64) -> String {
    let base = format_unix_seconds(millis.div_euclid(1000));
    match millis.rem_euclid(1000) {
        0 => base,
        ms => format!("{}.{ms:03}Z", &base[..base.len() - 1]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_formats() {
        let t = parse("2026-08-12T00:00:00Z").unwrap();
        assert_eq!(t.unix_seconds(), 1_786_492_800);
        assert!(t.utc);
        assert_eq!(format_unix_seconds(1_786_492_800), "2026-08-12T00:00:00Z");
        assert_eq!(parse("2026-08-12T02:00:00.250+02:00").unwrap().unix_millis, 1_786_492_800_250);
        assert!(!parse("2026-08-12T02:00:00+02:00").unwrap().utc);
        assert_eq!(format_unix_millis(1_786_492_800_250), "2026-08-12T00:00:00.250Z");
        assert_eq!(parse("1970-01-01T00:00:00Z").unwrap().unix_millis, 0);
    }

    #[test]
    fn rejects_non_timestamps() {
        for bad in [
            "2026-08-12",
            "2026-08-12T00:00:00",
            "2026-02-30T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-08-12 00:00:00Z",
            "x",
            "2026-08-12T00:00:00.Z",
            "2026-08-12T24:00:00Z",
            // Bytes just below '0' or just above '9' in digit pairs (date, time, year, offset); a multi-byte digit.
            "2026-0/-12T00:00:00Z",
            "2026-08-12T00:00:0:Z",
            "/026-08-12T00:00:00Z",
            "2026-08-12T00:00:00+0:00",
            "2026-08-12T00:00:00+00:/0",
            "2026-08-1\u{0662}T00:00:00Z",
        ] {
            assert!(parse(bad).is_none(), "{bad}");
        }
    }
}
