//! Values of compound fields and enums, checked and fitted in one place for attribute
//! values (parsed here) and variable data (read by ncgen's data pass), the way the
//! reference ncgen treats them where it writes a valid file:
//!
//! - a field given fewer values than it holds is padded with fill values (the type's
//!   default fill; `""` for strings, NUL for chars, a one-element vlen of the base type's
//!   fill, zero bytes for opaques), and so are fields left out at the end of a compound;
//! - values beyond a field's size are dropped (the caller warns);
//! - where the reference crashes or writes a value ncdump cannot read, it is an error: a
//!   string longer than a `char` array field, padding an enum field whose type's default
//!   fill is none of its constants, a number that is no constant of an enum.

use ncmodel::{
    field_len, AtomicType, CompoundField, TypeRef, UserType, UserTypeKind, Value, Values,
};

use super::constant::Constant;

/// Values that cannot be made to fit a compound field or an enum.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    /// A string longer than a `char` array field (the reference crashes on it).
    #[error("field `{field}` of `{compound}` holds {len} characters, {given} given")]
    TooManyChars {
        /// The compound type's name.
        compound: String,
        /// The field's name.
        field: String,
        /// How many characters the field holds.
        len: usize,
        /// How many were given.
        given: usize,
    },
    /// A field given fewer values than it holds, whose type (an enum, or holding one)
    /// has no fill value among its constants to pad it with.
    #[error(
        "field `{field}` of `{compound}` holds {len} value(s), {given} given, and enum \
         `{enum_name}` has no member for its default fill {fill} to fill the rest"
    )]
    NoEnumFill {
        /// The compound type's name.
        compound: String,
        /// The field's name.
        field: String,
        /// How many values the field holds.
        len: usize,
        /// How many were given.
        given: usize,
        /// The enum type's name.
        enum_name: String,
        /// The default fill value of its base type.
        fill: i128,
    },
    /// A type id that is not defined (an internal inconsistency).
    #[error("a field of `{compound}` has an undefined type")]
    UnknownType {
        /// The compound type's name.
        compound: String,
    },
}

/// Fits the values given for `field` of the compound type named `compound` to the
/// field's number of elements: pads them with [`padding`] or drops the extra ones.
/// Returns the values and how many were dropped.
pub fn fit_field(
    types: &[UserType],
    compound: &str,
    field: &CompoundField,
    mut values: Values,
) -> Result<(Values, usize), FieldError> {
    let len = field_len(field);
    let given = values.len();
    if given > len {
        if matches!(field.type_ref, TypeRef::Atomic(AtomicType::Char)) && !field.dims.is_empty() {
            return Err(FieldError::TooManyChars {
                compound: compound.to_string(),
                field: field.name.clone(),
                len,
                given,
            });
        }
        values = values.slice(0..len);
        return Ok((values, given - len));
    }
    if given < len {
        let fill = padding(types, field.type_ref).map_err(|e| match e {
            Padding::NoEnumFill { enum_name, fill } => FieldError::NoEnumFill {
                compound: compound.to_string(),
                field: field.name.clone(),
                len,
                given,
                enum_name,
                fill,
            },
            Padding::UnknownType => FieldError::UnknownType {
                compound: compound.to_string(),
            },
        })?;
        while values.len() < len {
            if !values.extend_from(&fill) {
                // Values of another type: the shape check reports them.
                break;
            }
        }
    }
    Ok((values, 0))
}

/// The values of `fields` (the last fields of the compound type named `compound`) when
/// a compound value leaves them out: each field full of [`padding`].
pub fn missing_fields(
    types: &[UserType],
    compound: &str,
    fields: &[CompoundField],
) -> Result<Vec<Values>, FieldError> {
    fields
        .iter()
        .map(|f| {
            let empty = match f.type_ref {
                TypeRef::Atomic(a) => Values::empty(a),
                TypeRef::User(_) => Values::User(Vec::new()),
            };
            fit_field(types, compound, f, empty).map(|(v, _)| v)
        })
        .collect()
}

/// Why there is no padding value for a type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Padding {
    /// An enum (or a compound holding one) whose default fill is none of its constants.
    NoEnumFill {
        /// The enum type's name.
        enum_name: String,
        /// Its base type's default fill.
        fill: i128,
    },
    /// The type is not defined.
    UnknownType,
}

/// One value of type `t` that pads a field given too few values, as the reference pads
/// it: the default fill of an atomic type (`""` for a string, NUL for a char), a vlen of
/// one fill value of its base type, an all-zero opaque, a compound of padded fields, an
/// enum's default fill if it is one of its constants.
pub fn padding(types: &[UserType], t: TypeRef) -> Result<Values, Padding> {
    let id = match t {
        TypeRef::Atomic(a) => return Ok(Values::default_fill(a)),
        TypeRef::User(id) => id,
    };
    let user = types
        .iter()
        .find(|u| u.id == id)
        .ok_or(Padding::UnknownType)?;
    let value = match &user.kind {
        UserTypeKind::Compound { fields } => {
            let mut parts = Vec::with_capacity(fields.len());
            for f in fields {
                let one = padding(types, f.type_ref)?;
                let mut all = one.clone();
                while all.len() < field_len(f) && all.extend_from(&one) {}
                parts.push(all);
            }
            Value::Compound(parts)
        }
        UserTypeKind::Vlen { base } => Value::Vlen(padding(types, *base)?),
        UserTypeKind::Opaque => Value::Opaque(vec![0; user.size]),
        UserTypeKind::Enum { base, members } => {
            let fill = Values::default_fill(*base).integer_at(0).unwrap_or(0);
            if !members.iter().any(|(_, v)| *v == fill) {
                return Err(Padding::NoEnumFill {
                    enum_name: user.name.clone(),
                    fill,
                });
            }
            Value::Enum(fill)
        }
    };
    Ok(Values::User(vec![value]))
}

/// Whether `c` can stand in a `char` array field: a string, a character constant or
/// `_`. The reference ignores other constants there, with a warning.
pub fn is_char_constant(c: &Constant) -> bool {
    matches!(c, Constant::Str(_) | Constant::Char(_) | Constant::Fill)
}

/// The value of the constant `c` in the enum type `user`: a constant's name (`A`, or
/// `e_t.A`, `/g/e_t.A` naming the type too), or a number that is the value of one of
/// its constants (the reference takes names only). The message says what is wrong.
pub fn enum_value(user: &UserType, c: &Constant) -> Result<i128, String> {
    let UserTypeKind::Enum { members, .. } = &user.kind else {
        return Err(format!("`{}` is not an enum type", user.name));
    };
    match c {
        Constant::Name(path) => {
            let last = path.last().map(String::as_str).unwrap_or_default();
            let name = last.rsplit_once('.').map_or(last, |(_, m)| m);
            members
                .iter()
                .find(|(m, _)| m == name || m == last)
                .map(|(_, v)| *v)
                .ok_or_else(|| format!("`{name}` is not a member of enum `{}`", user.name))
        }
        Constant::Int { value, .. } => members
            .iter()
            .find(|(_, v)| v == value)
            .map(|(_, v)| *v)
            .ok_or_else(|| {
                format!(
                    "{value} is the value of no member of enum `{}` ({})",
                    user.name,
                    members
                        .iter()
                        .map(|(m, v)| format!("{m} = {v}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }),
        other => Err(format!(
            "expected a member of enum `{}`, found {}",
            user.name,
            other.describe()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ncmodel::TypeId;

    fn field(name: &str, t: TypeRef, dims: &[usize]) -> CompoundField {
        CompoundField {
            name: name.into(),
            offset: 0,
            type_ref: t,
            dims: dims.to_vec(),
        }
    }

    fn types() -> Vec<UserType> {
        vec![
            UserType {
                id: TypeId(32),
                name: "e_t".into(),
                group_path: Vec::new(),
                size: 1,
                kind: UserTypeKind::Enum {
                    base: AtomicType::Byte,
                    members: vec![("A".into(), 1), ("B".into(), 2)],
                },
            },
            UserType {
                id: TypeId(33),
                name: "v_t".into(),
                group_path: Vec::new(),
                size: 16,
                kind: UserTypeKind::Vlen {
                    base: TypeRef::Atomic(AtomicType::Int),
                },
            },
        ]
    }

    const INT: TypeRef = TypeRef::Atomic(AtomicType::Int);

    #[test]
    fn extra_values_are_dropped_and_counted() {
        let f = field("a", INT, &[2]);
        let fitted = fit_field(&types(), "pair_t", &f, Values::Int(vec![1, 2, 3, 4, 5, 6]));
        assert_eq!(fitted, Ok((Values::Int(vec![1, 2]), 4)));
    }

    #[test]
    fn missing_values_are_fill_values() {
        let f = field("a", INT, &[2]);
        let fitted = fit_field(&types(), "pair_t", &f, Values::Int(vec![1]));
        assert_eq!(fitted, Ok((Values::Int(vec![1, -2147483647]), 0)));
        let s = field("s", TypeRef::Atomic(AtomicType::String), &[2]);
        let fitted = fit_field(&types(), "pair_t", &s, Values::String(vec![None]));
        assert_eq!(
            fitted,
            Ok((Values::String(vec![None, Some(Vec::new())]), 0))
        );
        let v = field("v", TypeRef::User(TypeId(33)), &[2]);
        let fitted = fit_field(&types(), "pair_t", &v, Values::User(Vec::new()));
        let fill = Value::Vlen(Values::Int(vec![-2147483647]));
        assert_eq!(fitted, Ok((Values::User(vec![fill.clone(), fill]), 0)));
    }

    #[test]
    fn long_strings_in_char_arrays_are_errors_but_scalar_chars_are_cut() {
        let c = field("c", TypeRef::Atomic(AtomicType::Char), &[3]);
        let fitted = fit_field(&types(), "s_t", &c, Values::Char(b"abcdef".to_vec()));
        assert!(matches!(
            fitted,
            Err(FieldError::TooManyChars { given: 6, .. })
        ));
        let c = field("c", TypeRef::Atomic(AtomicType::Char), &[]);
        let fitted = fit_field(&types(), "s_t", &c, Values::Char(b"ab".to_vec()));
        assert_eq!(fitted, Ok((Values::Char(b"a".to_vec()), 1)));
    }

    #[test]
    fn an_enum_without_a_fill_constant_cannot_pad() {
        let e = field("e", TypeRef::User(TypeId(32)), &[2]);
        let one = Values::User(vec![Value::Enum(1)]);
        let fitted = fit_field(&types(), "o_t", &e, one);
        assert!(matches!(
            fitted,
            Err(FieldError::NoEnumFill { fill: -127, .. })
        ));
        let missing = missing_fields(&types(), "o_t", &[field("x", INT, &[]), e]);
        assert!(matches!(missing, Err(FieldError::NoEnumFill { .. })));
    }

    #[test]
    fn enum_constants_by_name_or_by_a_member_value() {
        let types = types();
        let e = &types[0];
        let name = |n: &str| Constant::Name(vec![n.to_string()]);
        assert_eq!(enum_value(e, &name("B")), Ok(2));
        assert_eq!(enum_value(e, &name("e_t.A")), Ok(1));
        assert_eq!(
            enum_value(
                e,
                &Constant::Int {
                    value: 2,
                    ty: AtomicType::Int
                }
            ),
            Ok(2)
        );
        assert!(enum_value(
            e,
            &Constant::Int {
                value: 7,
                ty: AtomicType::Int
            }
        )
        .is_err());
        assert!(enum_value(e, &name("C")).is_err());
        assert!(enum_value(e, &Constant::Str(b"x".to_vec())).is_err());
    }
}
