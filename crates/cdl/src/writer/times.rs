//! Date-time strings for time variables (`-t`, `-i`): which variables count as time
//! variables (their own `units`/`calendar`, or their parent's for a `bounds` variable),
//! their values as quoted date-times and the CDL comments after their numeric
//! attributes.

use std::io::{self, Write};

use ncmodel::{Attribute, Values, Var};

use super::CdlWriter;
use crate::calendar::{Calendar, TimeAxis};

/// How values of time variables are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeStrings {
    /// As numbers (no `-t`).
    #[default]
    Off,
    /// As date-times with a blank between date and time (`-t`).
    Blank,
    /// As date-times with ISO 8601's `T` between date and time (`-i`).
    Iso,
}

/// The `bounds` attribute written last: ncdump remembers only that one.
pub(crate) struct BoundsLink {
    /// The name of the bounds variable; `None` for a string-typed attribute, whose name
    /// ncdump reads as garbage that names no variable.
    name: Option<Vec<u8>>,
    /// The time axis of the variable with the attribute.
    parent: Option<TimeAxis>,
}

/// The time axis of a variable's own `units` and `calendar` attributes: char text, or
/// the first value of a `string` attribute, as netCDF-C 4.10's ncdump reads them (4.9
/// took char only).
pub(crate) fn own_axis(var: &Var) -> Option<TimeAxis> {
    let text_att = |name: &str| match var.atts.iter().find(|a| a.name == name) {
        Some(Attribute {
            values: Values::Char(text),
            ..
        }) => Some(text.as_slice()),
        Some(Attribute {
            values: Values::String(strings),
            ..
        }) => Some(strings.first()?.as_deref().unwrap_or_default()),
        _ => None,
    };
    let calendar = match text_att("calendar") {
        Some(text) if !text.is_empty() => Calendar::from_attribute(text),
        _ => Calendar::Mixed,
    };
    TimeAxis::parse(text_att("units")?, calendar)
}

/// A number of any numeric type as a double; `None` for other types.
pub(crate) fn number_at(values: &Values, i: usize) -> Option<f64> {
    Some(match values {
        Values::Byte(v) => f64::from(v[i]),
        Values::Short(v) => f64::from(v[i]),
        Values::Int(v) => f64::from(v[i]),
        Values::Float(v) => f64::from(v[i]),
        Values::Double(v) => v[i],
        Values::UByte(v) => f64::from(v[i]),
        Values::UShort(v) => f64::from(v[i]),
        Values::UInt(v) => f64::from(v[i]),
        Values::Int64(v) => v[i] as f64,
        Values::UInt64(v) => v[i] as f64,
        Values::Char(_) | Values::String(_) | Values::User(_) => return None,
    })
}

impl<W: Write> CdlWriter<'_, W> {
    /// The separator of date and time, if time strings are wanted.
    pub(crate) fn time_separator(&self) -> Option<char> {
        match self.options.times {
            TimeStrings::Off => None,
            TimeStrings::Blank => Some(' '),
            TimeStrings::Iso => Some('T'),
        }
    }

    /// The time axis of a variable's data: its parent's if it is the last `bounds`
    /// variable named, else its own.
    pub(crate) fn data_axis(&self, var: &Var) -> Option<TimeAxis> {
        self.time_separator()?;
        match &self.bounds {
            Some(link) if link.name.as_deref() == Some(var.name.as_bytes()) => link.parent,
            _ => own_axis(var),
        }
    }

    /// The time axis for comments after a variable's attributes: ncdump looks it up under
    /// an empty name, so an empty `bounds` attribute lends its variable's axis to all.
    pub(crate) fn attribute_axis(&self, own: Option<TimeAxis>) -> Option<TimeAxis> {
        match &self.bounds {
            Some(link) if link.name.as_deref() == Some(&[][..]) => link.parent,
            _ => own,
        }
    }

    /// Remembers `att` of `var` if it is a `bounds` attribute.
    pub(crate) fn note_bounds(&mut self, var: &Var, att: &Attribute) {
        if self.time_separator().is_none() || att.name != "bounds" {
            return;
        }
        let name = match &att.values {
            v if v.is_empty() => Some(Vec::new()),
            Values::Char(text) => Some(text.split(|b| *b == 0).next().unwrap_or(&[]).to_vec()),
            Values::String(_) => None,
            _ => return,
        };
        self.bounds = Some(BoundsLink {
            name,
            parent: own_axis(var),
        });
    }

    /// A value of a time variable: a quoted date-time, or `NaN`, `Infinity`, `-Infinity`.
    pub(crate) fn time_text(&self, axis: &TimeAxis, value: f64, out: &mut Vec<u8>) {
        let separator = self.time_separator().unwrap_or(' ');
        let text = if value.is_nan() {
            "NaN".to_string()
        } else if value.is_infinite() {
            if value < 0.0 { "-Infinity" } else { "Infinity" }.to_string()
        } else {
            format!("\"{}\"", axis.format(value, separator))
        };
        out.extend_from_slice(text.as_bytes());
    }

    /// The comment after a numeric attribute of a time variable: its values as
    /// date-times, on the same line for one or two values, else on lines of their own.
    pub(crate) fn time_comment(&mut self, axis: &TimeAxis, values: &Values) -> io::Result<()> {
        let count = values.len();
        let wrap = count > 2;
        let mut position = 0usize;
        for i in 0..count {
            let Some(value) = number_at(values, i) else {
                return Ok(());
            };
            let mut text = Vec::new();
            self.time_text(axis, value, &mut text);
            if i + 1 < count {
                text.push(b',');
            }
            position += 1 + text.len();
            let newline = wrap && (i == 0 || position > self.options.max_line_len);
            if newline {
                self.put("\n")?;
                self.indent_out()?;
                self.put("\t\t  ")?;
                position = 18 + text.len();
            } else {
                self.put(" ")?;
            }
            if i == 0 || newline {
                self.put("// ")?;
                position += 3;
            }
            self.put(&text)?;
        }
        Ok(())
    }
}
