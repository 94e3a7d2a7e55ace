//! Fill values as ncdump compares them: the variable's `_FillValue` (same type, one
//! value) or the type's default, with a relative epsilon for floating point.

use ncmodel::{AtomicType, Dataset, TypeRef, UserTypeKind, Value, Values, Var};

/// The value a variable's data shows as `_`, if any.
pub(crate) struct FillValue<'a> {
    dataset: &'a Dataset,
    type_ref: TypeRef,
    value: Option<Values>,
}

/// The default fill value of an atomic type; ncdump uses none for bytes.
fn default_fill(t: AtomicType) -> Option<Values> {
    match t {
        AtomicType::Byte | AtomicType::UByte => None,
        _ => Some(Values::default_fill(t)),
    }
}

fn float_equals(fill: f32, v: f32) -> bool {
    if (fill > 0.0) != (v > 0.0) {
        return false;
    }
    if fill.is_finite() && v.is_finite() {
        return (fill - v).abs() <= (f32::EPSILON * v).abs();
    }
    (fill.is_nan() && v.is_nan()) || (fill.is_infinite() && v.is_infinite())
}

fn double_equals(fill: f64, v: f64) -> bool {
    if (fill > 0.0) != (v > 0.0) {
        return false;
    }
    if fill.is_finite() && v.is_finite() {
        return (fill - v).abs() <= (f64::EPSILON * v).abs();
    }
    (fill.is_nan() && v.is_nan()) || (fill.is_infinite() && v.is_infinite())
}

impl<'a> FillValue<'a> {
    /// The fill value of `var`.
    pub(crate) fn of(var: &Var, dataset: &'a Dataset) -> Self {
        let own = var
            .atts
            .iter()
            .find(|a| a.name == "_FillValue" && a.type_ref == var.type_ref && a.values.len() == 1)
            .map(|a| a.values.clone());
        let value = own.or_else(|| match var.type_ref {
            TypeRef::Atomic(t) => default_fill(t),
            TypeRef::User(_) => None,
        });
        Self {
            dataset,
            type_ref: var.type_ref,
            value,
        }
    }

    /// Whether element `i` of `values` is the fill value.
    pub(crate) fn matches(&self, values: &Values, i: usize) -> bool {
        match &self.value {
            Some(fill) => self.equal(self.type_ref, fill, 0, values, i),
            None => false,
        }
    }

    fn equal(&self, t: TypeRef, a: &Values, i: usize, b: &Values, j: usize) -> bool {
        match (a, b) {
            (Values::Byte(x), Values::Byte(y)) => x.get(i) == y.get(j),
            (Values::Char(x), Values::Char(y)) | (Values::UByte(x), Values::UByte(y)) => {
                x.get(i) == y.get(j)
            }
            (Values::Short(x), Values::Short(y)) => x.get(i) == y.get(j),
            (Values::Int(x), Values::Int(y)) => x.get(i) == y.get(j),
            (Values::UShort(x), Values::UShort(y)) => x.get(i) == y.get(j),
            (Values::UInt(x), Values::UInt(y)) => x.get(i) == y.get(j),
            (Values::Int64(x), Values::Int64(y)) => x.get(i) == y.get(j),
            (Values::UInt64(x), Values::UInt64(y)) => x.get(i) == y.get(j),
            (Values::Float(x), Values::Float(y)) => match (x.get(i), y.get(j)) {
                (Some(f), Some(v)) => float_equals(*f, *v),
                _ => false,
            },
            (Values::Double(x), Values::Double(y)) => match (x.get(i), y.get(j)) {
                (Some(f), Some(v)) => double_equals(*f, *v),
                _ => false,
            },
            (Values::String(x), Values::String(y)) => x.get(i) == y.get(j),
            (Values::User(x), Values::User(y)) => match (x.get(i), y.get(j)) {
                (Some(p), Some(q)) => self.user_equal(t, p, q),
                _ => false,
            },
            _ => false,
        }
    }

    fn all_equal(&self, t: TypeRef, a: &Values, b: &Values) -> bool {
        a.len() == b.len() && (0..a.len()).all(|k| self.equal(t, a, k, b, k))
    }

    fn user_equal(&self, t: TypeRef, a: &Value, b: &Value) -> bool {
        let TypeRef::User(id) = t else {
            return false;
        };
        let Some(user) = self.dataset.user_type(id) else {
            return false;
        };
        match (&user.kind, a, b) {
            (_, Value::Opaque(x), Value::Opaque(y)) => x == y,
            (_, Value::Enum(x), Value::Enum(y)) => x == y,
            (UserTypeKind::Vlen { base }, Value::Vlen(x), Value::Vlen(y)) => {
                self.all_equal(*base, x, y)
            }
            (UserTypeKind::Compound { fields }, Value::Compound(x), Value::Compound(y)) => fields
                .iter()
                .zip(x.iter().zip(y))
                .all(|(f, (p, q))| self.all_equal(f.type_ref, p, q)),
            _ => false,
        }
    }
}
