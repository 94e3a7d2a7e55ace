//! CF-style time coordinates as `ncdump -t` reads them: a `units` attribute such as
//! `days since 2000-01-01 12:00`, an optional `calendar` attribute, and the conversion of
//! offsets to date-time strings such as `2005-12-15 12` with the same climate calendars,
//! base-time defaults, rounding and trimming of zero time parts as netCDF-C 4.9's ncdump.

mod convert;
mod scan;

use convert::{Comp, Kind};
use scan::Scanner;

/// A calendar named by a `calendar` attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calendar {
    /// `standard`, `gregorian` (and the default): Julian before 1582-10-15, Gregorian
    /// from then on.
    Mixed,
    /// `proleptic_gregorian`.
    ProlepticGregorian,
    /// `julian`.
    Julian,
    /// `noleap`, `no_leap`, `365_day`.
    NoLeap,
    /// `all_leap`, `allleap`, `366_day`.
    AllLeap,
    /// `360_day`: twelve months of 30 days.
    Day360,
    /// `none`: a climatological year without year numbers (dates print as `MM-DD`).
    Climatological,
}

/// ncdump's calendar names, in the order it tries them.
const CALENDAR_NAMES: [(&str, Calendar); 12] = [
    ("gregorian", Calendar::Mixed),
    ("standard", Calendar::Mixed),
    ("proleptic_gregorian", Calendar::ProlepticGregorian),
    ("noleap", Calendar::NoLeap),
    ("no_leap", Calendar::NoLeap),
    ("365_day", Calendar::NoLeap),
    ("allleap", Calendar::AllLeap),
    ("all_leap", Calendar::AllLeap),
    ("366_day", Calendar::AllLeap),
    ("360_day", Calendar::Day360),
    ("julian", Calendar::Julian),
    ("none", Calendar::Climatological),
];

impl Calendar {
    /// The calendar of a text `calendar` attribute: the first name the value abbreviates
    /// (case-insensitively; text after a NUL must match the name exactly up to its end),
    /// or [`Calendar::Mixed`] when none does.
    pub fn from_attribute(text: &[u8]) -> Self {
        if text.is_empty() {
            return Self::Mixed;
        }
        let c_string = text.split(|b| *b == 0).next().unwrap_or(&[]);
        let truncated = c_string.len() < text.len();
        CALENDAR_NAMES
            .iter()
            .find(|(name, _)| {
                let name = name.as_bytes();
                if truncated {
                    c_string.eq_ignore_ascii_case(name)
                } else {
                    name.len() >= c_string.len()
                        && name[..c_string.len()].eq_ignore_ascii_case(c_string)
                }
            })
            .map_or(Self::Mixed, |(_, calendar)| *calendar)
    }

    /// Whether dates of this calendar carry a year.
    fn has_years(self) -> bool {
        self != Self::Climatological
    }

    /// The fixed calendar its arithmetic uses (the mixed one switches between two).
    fn kind(self) -> Kind {
        match self {
            Self::Mixed | Self::ProlepticGregorian => Kind::Gregorian,
            Self::Julian => Kind::Julian,
            Self::NoLeap => Kind::NoLeap,
            Self::AllLeap => Kind::AllLeap,
            Self::Day360 => Kind::Day360,
            Self::Climatological => Kind::Climatological,
        }
    }
}

/// The unit of time offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// `sec…`, `s`.
    Second,
    /// `min…`, `mn`.
    Minute,
    /// `hour…`, `hr`.
    Hour,
    /// `day…`, `dy`.
    Day,
    /// `week…`, `wk`: 7 days.
    Week,
    /// `month…`, `mo`: calendar months (results fall on the 1st of a month).
    Month,
    /// `season…`: 3 calendar months.
    Season,
    /// `year…`, `yr`: 12 calendar months.
    Year,
}

impl TimeUnit {
    /// The unit a units word names, compared case-insensitively as ncdump does.
    fn from_word(word: &[u8]) -> Option<Self> {
        let starts = |prefix: &str| {
            word.len() >= prefix.len()
                && word[..prefix.len()].eq_ignore_ascii_case(prefix.as_bytes())
        };
        let is = |w: &str| word.eq_ignore_ascii_case(w.as_bytes());
        Some(if starts("sec") || is("s") {
            Self::Second
        } else if starts("min") || is("mn") {
            Self::Minute
        } else if starts("hour") || is("hr") {
            Self::Hour
        } else if starts("day") || is("dy") {
            Self::Day
        } else if starts("week") || is("wk") {
            Self::Week
        } else if starts("month") || is("mo") {
            Self::Month
        } else if starts("season") {
            Self::Season
        } else if starts("year") || is("yr") {
            Self::Year
        } else {
            return None;
        })
    }
}

/// A time coordinate: offsets in `unit` since `base`, in `calendar`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeAxis {
    calendar: Calendar,
    unit: TimeUnit,
    base: Comp,
}

/// Cuts a scanned word at its first blank or after `max - 1` bytes (ncdump's buffers).
fn trim(word: &[u8], max: usize) -> &[u8] {
    let end = word
        .iter()
        .take(max - 1)
        .take_while(|b| !scan::is_space(**b))
        .count();
    &word[..end]
}

/// A units text in parts: the unit word, then the base date's parts that matched.
type UnitParts<'a> = (&'a [u8], Option<&'a [u8]>, Option<&'a [u8]>);

/// `UNIT since A [B]` split as ncdump's first pattern does: (word, A, B), counting only
/// what matched; `None` when not even the word did.
fn split_blank(units: &[u8]) -> Option<UnitParts<'_>> {
    let mut s = Scanner::new(units);
    let word = s.token()?;
    s.blanks();
    if !s.literal(b"since") {
        return Some((word, None, None));
    }
    s.blanks();
    let a = s.token();
    let b = a.and_then(|_| s.token());
    Some((word, a, b))
}

/// The same with ncdump's ISO pattern `UNIT since A'T'B`.
fn split_iso(units: &[u8]) -> Option<UnitParts<'_>> {
    let mut s = Scanner::new(units);
    let word = s.token()?;
    s.blanks();
    if !s.literal(b"since") {
        return Some((word, None, None));
    }
    s.blanks();
    let a = s.not_t();
    let b = a.and_then(|_| if s.literal(b"T") { s.token() } else { None });
    Some((word, a, b))
}

impl TimeAxis {
    /// The time axis of a text `units` attribute (up to its first NUL) in `calendar`, if
    /// ncdump takes it for one: a unit word ncdump knows, the word `since` and something
    /// after it (a date ncdump cannot read counts as year 0); not years in the `none`
    /// calendar.
    pub fn parse(units: &[u8], calendar: Calendar) -> Option<Self> {
        let units = units.split(|b| *b == 0).next().unwrap_or(&[]);
        let (_, iso_base, _) = split_iso(units)?;
        let (word, blank_base, _) = split_blank(units)?;
        if iso_base.is_none() && blank_base.is_none() {
            return None;
        }
        TimeUnit::from_word(word)?;
        // The conversion proper splits again, at a `T` only if the date has one.
        let (word, a, b) = match split_blank(units)? {
            (_, Some(a), _) if a.contains(&b'T') => split_iso(units)?,
            parts => parts,
        };
        let unit = TimeUnit::from_word(trim(word, 64))?;
        if unit == TimeUnit::Year && !calendar.has_years() {
            return None;
        }
        let base_text = match (a, b) {
            (None, _) if calendar.has_years() => b"1979".to_vec(),
            (None, _) => b"1".to_vec(),
            (Some(a), None) => trim(a, 48).to_vec(),
            (Some(a), Some(b)) => [trim(a, 48), b" ", trim(b, 48)].concat(),
        };
        Some(Self {
            calendar,
            unit,
            base: Comp::parse(&base_text, calendar.has_years()),
        })
    }

    /// The calendar.
    pub fn calendar(&self) -> Calendar {
        self.calendar
    }

    /// The unit of offsets.
    pub fn unit(&self) -> TimeUnit {
        self.unit
    }

    /// The date-time `offset` units after the base, as ncdump writes it (without quotes):
    /// `YYYY-MM-DD`, then `separator` and `HH`, `HH:MM`, `HH:MM:SS` or `HH:MM:S.SSSSSS`
    /// as far as the time is not zero (`MM-DD…` in the `none` calendar). `offset` must be
    /// finite.
    pub fn format(&self, offset: f64, separator: char) -> String {
        let comp = convert::offset_to_comp(self.calendar, self.unit, self.base, offset);
        comp.iso(self.calendar.has_years(), separator)
    }
}

#[cfg(test)]
mod tests;
