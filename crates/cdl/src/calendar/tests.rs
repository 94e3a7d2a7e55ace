use super::*;

fn show(units: &str, calendar: Calendar, offset: f64) -> String {
    match TimeAxis::parse(units.as_bytes(), calendar) {
        Some(axis) => axis.format(offset, ' '),
        None => "-".to_string(),
    }
}

#[test]
fn calendar_names_are_abbreviations() {
    assert_eq!(Calendar::from_attribute(b"greg"), Calendar::Mixed);
    assert_eq!(Calendar::from_attribute(b"NoLeap"), Calendar::NoLeap);
    assert_eq!(Calendar::from_attribute(b"365"), Calendar::NoLeap);
    assert_eq!(Calendar::from_attribute(b"noleap\0"), Calendar::NoLeap);
    assert_eq!(Calendar::from_attribute(b"360_day "), Calendar::Mixed);
    assert_eq!(Calendar::from_attribute(b"none"), Calendar::Climatological);
    assert_eq!(Calendar::from_attribute(b"julian"), Calendar::Julian);
}

#[test]
fn units_ncdump_takes_for_time() {
    assert_eq!(
        show("days since 1500-1-1", Calendar::Mixed, 2009.0),
        "1505-07-02"
    );
    assert_eq!(
        show("DaYs since 1500-1-1", Calendar::Mixed, 2009.0),
        "1505-07-02"
    );
    assert_eq!(show("days", Calendar::Mixed, 1.0), "-");
    assert_eq!(show("days since", Calendar::Mixed, 1.0), "-");
    assert_eq!(show("meters since 2000", Calendar::Mixed, 1.0), "-");
    assert_eq!(show("years since 2000", Calendar::Climatological, 1.0), "-");
    assert_eq!(show("days since 1990", Calendar::Mixed, 1.0), "1990-01-02");
}

#[test]
fn every_calendar_from_1500() {
    let units = "days since 1500-01-01 00:00:00";
    let cases = [
        (Calendar::ProlepticGregorian, "1505-07-03"),
        (Calendar::NoLeap, "1505-07-04"),
        (Calendar::AllLeap, "1505-06-28"),
        (Calendar::Day360, "1505-07-30"),
        (Calendar::Julian, "1505-07-02"),
    ];
    for (calendar, expected) in cases {
        assert_eq!(show(units, calendar, 2009.0), expected, "{calendar:?}");
    }
}

#[test]
fn times_of_day_are_trimmed() {
    let units = "days since 2000-06-15T12:00:00";
    assert_eq!(show(units, Calendar::Mixed, 2009.0), "2005-12-15 12");
    let units = "seconds since 1970-01-01 00:00:00.5";
    assert_eq!(
        show(units, Calendar::Mixed, 0.25),
        "1970-01-01 00:00:0.750000"
    );
    assert_eq!(
        show("hours since 1582-10-01", Calendar::Mixed, 1.5),
        "1582-10-01 01:30"
    );
    assert_eq!(
        show("minutes since 2000-01-01", Calendar::Mixed, 61.0),
        "2000-01-01 01:01"
    );
}

#[test]
fn months_land_on_the_first() {
    let units = "months since 2000-01-15 06:00";
    assert_eq!(show(units, Calendar::Mixed, 0.0), "2000-01-15 06");
    assert_eq!(show(units, Calendar::Mixed, -1.0), "1999-12-01");
    assert_eq!(
        show("years since 1582-03-01", Calendar::Mixed, -2000.0),
        "-0418-03-01"
    );
}

#[test]
fn the_mixed_calendar_skips_ten_days() {
    let units = "days since 1582-10-20";
    assert_eq!(show(units, Calendar::Mixed, -5.0), "1582-10-05");
    assert_eq!(show(units, Calendar::Mixed, -6.0), "1582-10-04");
    assert_eq!(show(units, Calendar::Mixed, -1000.0), "1580-01-14");
}

#[test]
fn the_none_calendar_has_no_years() {
    let units = "days since 2000-01-01";
    assert_eq!(show(units, Calendar::Climatological, 59.0), "03-01");
    assert_eq!(show(units, Calendar::Climatological, 400.0), "02-05");
}
