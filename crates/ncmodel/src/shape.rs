//! Whether values have the shape their type demands: the right kind of array for an
//! atomic type, and for a compound exactly one array per field, each holding exactly the
//! field's number of elements. Values are laid out in C memory for libnetcdf by that
//! shape alone, so values that do not fit it would be read past or spill into the next
//! field: front ends check with [`check_values`] before handing values on.

use crate::types::{CompoundField, TypeRef, UserType, UserTypeKind};
use crate::values::{Value, Values};

/// Values that do not have the shape of their type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {problem}")]
pub struct Misfit {
    /// Where in the value: the type, then fields and indices (`pair_t.a`, `[2]`...).
    pub path: String,
    /// What does not fit.
    pub problem: String,
}

/// The number of elements of a compound field: the product of its dimensions, 1 for a
/// scalar field.
pub fn field_len(field: &CompoundField) -> usize {
    field.dims.iter().product::<usize>().max(1)
}

/// Checks that `values` are values of type `t` whose compounds have every field with its
/// exact number of elements, recursively (nested compounds, vlens, arrays of them);
/// `types` are the dataset's user-defined types.
pub fn check_values(types: &[UserType], t: TypeRef, values: &Values) -> Result<(), Misfit> {
    let name = type_name(types, t);
    check_array(types, t, values, &name)
}

fn type_name(types: &[UserType], t: TypeRef) -> String {
    match t {
        TypeRef::Atomic(a) => a.cdl_name().to_string(),
        TypeRef::User(id) => types
            .iter()
            .find(|u| u.id == id)
            .map_or_else(|| format!("type {}", id.0), |u| u.name.clone()),
    }
}

fn misfit(path: &str, problem: impl Into<String>) -> Misfit {
    Misfit {
        path: path.to_string(),
        problem: problem.into(),
    }
}

fn check_array(types: &[UserType], t: TypeRef, values: &Values, path: &str) -> Result<(), Misfit> {
    match (t, values) {
        (TypeRef::Atomic(a), values) => {
            let expected = Values::empty(a);
            if std::mem::discriminant(&expected) != std::mem::discriminant(values) {
                return Err(misfit(path, format!("values are not of type {a}")));
            }
            Ok(())
        }
        (TypeRef::User(id), Values::User(list)) => {
            let Some(user) = types.iter().find(|u| u.id == id) else {
                return Err(misfit(path, "unknown type"));
            };
            for (i, value) in list.iter().enumerate() {
                let at = if list.len() == 1 {
                    path.to_string()
                } else {
                    format!("{path}[{i}]")
                };
                check_value(types, user, value, &at)?;
            }
            Ok(())
        }
        (TypeRef::User(_), _) => Err(misfit(path, "atomic values for a user-defined type")),
    }
}

fn check_value(
    types: &[UserType],
    user: &UserType,
    value: &Value,
    path: &str,
) -> Result<(), Misfit> {
    match (&user.kind, value) {
        (UserTypeKind::Compound { fields }, Value::Compound(parts)) => {
            if parts.len() != fields.len() {
                return Err(misfit(
                    path,
                    format!("{} field values for {} fields", parts.len(), fields.len()),
                ));
            }
            for (field, part) in fields.iter().zip(parts) {
                let at = format!("{path}.{}", field.name);
                check_array(types, field.type_ref, part, &at)?;
                let len = field_len(field);
                if part.len() != len {
                    return Err(misfit(
                        &at,
                        format!("{} value(s) for a field of {len}", part.len()),
                    ));
                }
            }
            Ok(())
        }
        (UserTypeKind::Vlen { base }, Value::Vlen(items)) => check_array(types, *base, items, path),
        (UserTypeKind::Opaque, Value::Opaque(bytes)) if bytes.len() == user.size => Ok(()),
        (UserTypeKind::Opaque, Value::Opaque(bytes)) => Err(misfit(
            path,
            format!("{} bytes for an opaque of {}", bytes.len(), user.size),
        )),
        (UserTypeKind::Enum { .. }, Value::Enum(_)) => Ok(()),
        _ => Err(misfit(path, "a value of another kind of type")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{AtomicType, TypeId};

    fn pair() -> Vec<UserType> {
        vec![UserType {
            id: TypeId(32),
            name: "pair_t".into(),
            group_path: Vec::new(),
            size: 24,
            kind: UserTypeKind::Compound {
                fields: vec![
                    CompoundField {
                        name: "a".into(),
                        offset: 0,
                        type_ref: TypeRef::Atomic(AtomicType::Int),
                        dims: vec![2],
                    },
                    CompoundField {
                        name: "s".into(),
                        offset: 8,
                        type_ref: TypeRef::Atomic(AtomicType::String),
                        dims: vec![2],
                    },
                ],
            },
        }]
    }

    fn value(a: Vec<i32>, s: usize) -> Values {
        Values::User(vec![Value::Compound(vec![
            Values::Int(a),
            Values::String(vec![Some(b"x".to_vec()); s]),
        ])])
    }

    #[test]
    fn exact_fields_fit() {
        let t = TypeRef::User(TypeId(32));
        assert_eq!(check_values(&pair(), t, &value(vec![1, 2], 2)), Ok(()));
    }

    #[test]
    fn too_many_or_too_few_elements_do_not() {
        let t = TypeRef::User(TypeId(32));
        let long = check_values(&pair(), t, &value(vec![1, 2, 3, 4, 5, 6], 1));
        assert_eq!(
            long.map_err(|e| e.to_string()),
            Err("pair_t.a: 6 value(s) for a field of 2".to_string())
        );
        let short = check_values(&pair(), t, &value(vec![1, 2], 1));
        assert_eq!(
            short.map_err(|e| e.to_string()),
            Err("pair_t.s: 1 value(s) for a field of 2".to_string())
        );
    }

    #[test]
    fn wrong_types_and_missing_fields_do_not() {
        let t = TypeRef::User(TypeId(32));
        let swapped = Values::User(vec![Value::Compound(vec![
            Values::String(vec![None, None]),
            Values::Int(vec![1, 2]),
        ])]);
        assert!(check_values(&pair(), t, &swapped).is_err());
        let missing = Values::User(vec![Value::Compound(vec![Values::Int(vec![1, 2])])]);
        assert!(check_values(&pair(), t, &missing).is_err());
        assert!(check_values(&pair(), t, &Values::Int(vec![1])).is_err());
    }
}
