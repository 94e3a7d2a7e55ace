//! Calendar arithmetic: dates as hours since 1970-01-01 in a fixed calendar, offsets
//! added in calendar months or in hours, the mixed Julian/Gregorian calendar's switch,
//! and the ISO text of a date.

use super::scan::Scanner;
use super::{Calendar, TimeUnit};

/// A fixed calendar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Gregorian,
    Julian,
    NoLeap,
    AllLeap,
    Day360,
    /// 365 days, no year numbers.
    Climatological,
}

const MONTH_DAYS: [i64; 12] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DAYS_BEFORE_MONTH: [i64; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];

impl Kind {
    fn is_leap(self, year: i64) -> bool {
        match self {
            Self::AllLeap => true,
            Self::Gregorian => year % 4 == 0 && (year % 100 != 0 || year % 400 == 0),
            Self::Julian => year % 4 == 0,
            Self::NoLeap | Self::Day360 | Self::Climatological => false,
        }
    }

    fn year_days(self, year: i64) -> i64 {
        match self {
            Self::Day360 => 360,
            _ if self.is_leap(year) => 366,
            _ => 365,
        }
    }

    fn month_days(self, year: i64, month: usize) -> i64 {
        match self {
            Self::Day360 => 30,
            _ if month == 2 && self.is_leap(year) => 29,
            _ => MONTH_DAYS[month - 1],
        }
    }

    /// Years and days of one full cycle of leap years.
    fn cycle(self) -> (i64, i64) {
        match self {
            Self::Gregorian => (400, 146_097),
            Self::Julian => (4, 1461),
            _ => (1, self.year_days(0)),
        }
    }

    /// The year numbers count (in the `none` calendar every date is in year 0).
    fn has_years(self) -> bool {
        self != Self::Climatological
    }

    /// Days from 1 January 1970 to 1 January of `year` (negative before).
    fn days_to_year(self, year: i64) -> i64 {
        let multiples =
            |m: i64, from: i64, to: i64| (to - 1).div_euclid(m) - (from - 1).div_euclid(m);
        let (from, to, sign) = if year >= 1970 {
            (1970, year, 1)
        } else {
            (year, 1970, -1)
        };
        let leaps = match self {
            Self::Gregorian => {
                multiples(4, from, to) - multiples(100, from, to) + multiples(400, from, to)
            }
            Self::Julian => multiples(4, from, to),
            Self::AllLeap | Self::NoLeap | Self::Day360 | Self::Climatological => 0,
        };
        sign * ((to - from) * self.year_days(1) + leaps)
    }
}

/// A date and time of day: year, month, day and hours since midnight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Comp {
    pub(crate) year: i64,
    pub(crate) month: i64,
    pub(crate) day: i64,
    pub(crate) hour: f64,
}

/// The last Julian day and the first Gregorian day of the mixed calendar.
const JULIAN_END: Comp = Comp {
    year: 1582,
    month: 10,
    day: 5,
    hour: 0.0,
};
const GREGORIAN_START: Comp = Comp {
    year: 1582,
    month: 10,
    day: 15,
    hour: 0.0,
};
/// The origin of plain `hours` offsets, through which the mixed calendar adds.
const ORIGIN_1979: Comp = Comp {
    year: 1979,
    month: 1,
    day: 1,
    hour: 0.0,
};

impl Comp {
    /// A base date `Y-M-D h:m:s` (`M-D h:m:s` without years): as many fields as can be
    /// read, the others January 1st at midnight; an hour, minute or second out of range
    /// ends the reading there.
    pub(crate) fn parse(text: &[u8], with_years: bool) -> Self {
        let mut comp = Comp {
            year: 0,
            month: 1,
            day: 1,
            hour: 0.0,
        };
        let mut s = Scanner::new(text);
        if with_years {
            match s.integer() {
                Some(year) => comp.year = year,
                None => return comp,
            }
            if !s.literal(b"-") {
                return comp;
            }
        }
        let short = |v: i64| i64::from(v as i16);
        let Some(month) = s.integer() else {
            return comp;
        };
        comp.month = short(month);
        let Some(day) = s.literal(b"-").then(|| s.integer()).flatten() else {
            return comp;
        };
        comp.day = short(day);
        s.blanks();
        let Some(hour) = s.integer() else { return comp };
        let hour = i64::from(hour as i32);
        if !(0..=23).contains(&hour) {
            return comp;
        }
        comp.hour = hour as f64;
        let Some(minute) = s.literal(b":").then(|| s.integer()).flatten() else {
            return comp;
        };
        let minute = i64::from(minute as i32);
        if !(0..=59).contains(&minute) {
            return comp;
        }
        comp.hour += minute as f64 / 60.0;
        if let Some(second) = s.literal(b":").then(|| s.double()).flatten() {
            // NaN passes this test, as in ncdump.
            if second.is_nan() || (0.0..=60.0).contains(&second) {
                comp.hour += second / 3600.0;
            }
        }
        comp
    }

    /// Hours since 1970-01-01 00:00 in `kind` (the year ignored without years; a month
    /// out of range counts as January).
    fn to_hours(self, kind: Kind) -> f64 {
        let month = if (1..=12).contains(&self.month) {
            self.month
        } else {
            1
        };
        let year = if kind.has_years() { self.year } else { 0 };
        let leap_day = i64::from(kind.is_leap(year) && month > 2);
        let day_of_year = match kind {
            Kind::Day360 => 30 * (month - 1),
            _ => DAYS_BEFORE_MONTH[(month - 1) as usize],
        } + self.day
            + leap_day;
        let days = if kind.has_years() {
            kind.days_to_year(year)
        } else {
            0
        };
        (days + day_of_year - 1) as f64 * 24.0 + self.hour
    }

    /// The date `hours` after 1970-01-01 00:00 in `kind` (after 0000-01-01 without years).
    fn from_hours(hours: f64, kind: Kind) -> Self {
        // Far beyond any calendar's use; keeps the day count from overflowing.
        let mut day = (hours / 24.0).floor().clamp(-1e15, 1e15) as i64 + 1;
        let mut hour = hours - (day - 1) as f64 * 24.0;
        if hour >= 24.0 {
            day += 1;
            hour -= 24.0;
        }
        let mut year = if kind.has_years() { 1970 } else { 0 };
        let (cycle_years, cycle_days) = kind.cycle();
        if day > 0 {
            let cycles = (day - 1) / cycle_days;
            year += cycles * cycle_years;
            day -= cycles * cycle_days;
            while day > kind.year_days(year) {
                day -= kind.year_days(year);
                year += 1;
            }
        } else {
            let cycles = -day / cycle_days;
            year -= cycles * cycle_years;
            day += cycles * cycle_days;
            while day <= 0 {
                year -= 1;
                day += kind.year_days(year);
            }
        }
        if !kind.has_years() {
            year = 0;
        }
        let mut month = 1;
        let mut day_of_month = day;
        for m in 1..=12 {
            month = m;
            day_of_month = day;
            day -= kind.month_days(year, m);
            if day <= 0 {
                break;
            }
        }
        Comp {
            year,
            month: month as i64,
            day: day_of_month,
            hour,
        }
    }

    /// Hours from the 1979 origin to this date in `kind`.
    fn since_1979(self, kind: Kind) -> f64 {
        self.to_hours(kind) - ORIGIN_1979.to_hours(kind)
    }

    /// This date plus `hours`, counted from the 1979 origin in `kind`.
    fn add_hours(self, hours: f64, kind: Kind) -> Self {
        let offset = self.since_1979(kind) + hours;
        Self::from_hours(ORIGIN_1979.to_hours(kind) + offset, kind)
    }

    fn before(self, other: Comp) -> bool {
        (self.year, self.month, self.day) < (other.year, other.month, other.day)
            || ((self.year, self.month, self.day) == (other.year, other.month, other.day)
                && self.hour < other.hour)
    }

    /// This date plus `hours` in the mixed calendar: Julian up to 1582-10-05, Gregorian
    /// from 1582-10-15.
    fn add_hours_mixed(self, hours: f64) -> Self {
        if self.before(GREGORIAN_START) {
            let to_switch = JULIAN_END.since_1979(Kind::Julian) - self.since_1979(Kind::Julian);
            if hours <= to_switch {
                self.add_hours(hours, Kind::Julian)
            } else {
                GREGORIAN_START.add_hours(hours - to_switch, Kind::Gregorian)
            }
        } else {
            let to_switch =
                GREGORIAN_START.since_1979(Kind::Gregorian) - self.since_1979(Kind::Gregorian);
            if hours > to_switch {
                self.add_hours(hours, Kind::Gregorian)
            } else {
                JULIAN_END.add_hours(hours - to_switch, Kind::Julian)
            }
        }
    }

    /// The ISO text: the date, then the time as far as it is not zero.
    pub(crate) fn iso(self, with_years: bool, separator: char) -> String {
        const EPS_SECOND: f64 = 0.5e-6;
        const EPS_MINUTE: f64 = EPS_SECOND / 60.0;
        const EPS_HOUR: f64 = EPS_MINUTE / 60.0;
        let hours = (self.hour + EPS_HOUR) as i64;
        let minutes_left = 60.0 * (self.hour - hours as f64);
        let minutes = (minutes_left + EPS_MINUTE) as i64;
        let seconds = 60.0 * (minutes_left - minutes as f64);
        let whole_seconds = (seconds + EPS_SECOND) as i64;
        let mut text = if with_years {
            let sign = if self.year < 0 { "-" } else { "" };
            format!("{sign}{:04}-", self.year.unsigned_abs())
        } else {
            String::new()
        };
        text.push_str(&format!("{:02}-{:02}", self.month, self.day));
        if seconds - (whole_seconds as f64) >= EPS_SECOND {
            let seconds = crate::number::format_f(seconds, 6, false);
            text.push_str(&format!("{separator}{hours:02}:{minutes:02}:{seconds}"));
        } else if whole_seconds != 0 {
            text.push_str(&format!(
                "{separator}{hours:02}:{minutes:02}:{whole_seconds:02}"
            ));
        } else if minutes != 0 {
            text.push_str(&format!("{separator}{hours:02}:{minutes:02}"));
        } else if hours != 0 {
            text.push_str(&format!("{separator}{hours:02}"));
        }
        text
    }
}

/// The date `offset` units after `base`.
pub(crate) fn offset_to_comp(calendar: Calendar, unit: TimeUnit, base: Comp, offset: f64) -> Comp {
    let hours = match unit {
        TimeUnit::Second => offset / 3600.0,
        TimeUnit::Minute => offset / 60.0,
        TimeUnit::Hour => offset,
        TimeUnit::Day => 24.0 * offset,
        TimeUnit::Week => 168.0 * offset,
        TimeUnit::Month | TimeUnit::Season | TimeUnit::Year => {
            let months = match unit {
                TimeUnit::Season => 3.0 * offset,
                TimeUnit::Year => 12.0 * offset,
                _ => offset,
            };
            return add_months(calendar.kind(), base, offset, months);
        }
    };
    if calendar == Calendar::Mixed {
        return base.add_hours_mixed(hours);
    }
    let kind = calendar.kind();
    Comp::from_hours(base.to_hours(kind) + hours, kind)
}

/// `base` plus a whole number of calendar months, landing on the 1st of the month at
/// midnight (just `base` for a zero offset).
fn add_months(kind: Kind, base: Comp, offset: f64, months: f64) -> Comp {
    if offset == 0.0 {
        return base;
    }
    let nudge = if offset < 0.0 { -1e-10 } else { 1e-10 };
    let months = (months + nudge) as i64;
    let start = Comp::from_hours(base.to_hours(kind), kind);
    let total = months.saturating_add(start.month - 1);
    let years = total.div_euclid(12);
    let end = Comp {
        year: start.year + years,
        month: total.rem_euclid(12) + 1,
        day: 1,
        hour: 0.0,
    };
    Comp::from_hours(end.to_hours(kind), kind)
}
