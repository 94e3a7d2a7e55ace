//! Values of user-defined types in CDL data: compounds `{f1, f2, {a1, a2}}`, vlens
//! `{v1, v2, ...}`, opaque hex constants and enum constants by name, nested as deep as the
//! types are.

use std::io::BufRead;

use anyhow::{anyhow, bail};
use cdl::parse::{convert_constants, Constant, DataReader, DataToken};

use super::data::{self, place};
use ncmodel::{AtomicType, CompoundField, Dataset, TypeRef, UserTypeKind, Value, Values};

/// Reads values of one user-defined type from a data entry's tokens.
pub struct UserValueReader<'a> {
    dataset: &'a Dataset,
    type_ref: TypeRef,
    /// The variable's `_FillValue`, which `_` stands for.
    var_fill: Option<Value>,
}

impl<'a> UserValueReader<'a> {
    /// A reader of values of `type_ref` (a user-defined type of `dataset`) for a variable
    /// whose `_FillValue` is `var_fill`.
    pub fn new(dataset: &'a Dataset, type_ref: TypeRef, var_fill: Option<Value>) -> Self {
        Self {
            dataset,
            type_ref,
            var_fill,
        }
    }

    /// The type of the values read.
    pub fn type_ref(&self) -> TypeRef {
        self.type_ref
    }

    /// The next value, or `None` at the end of the entry.
    pub fn next_value<R: BufRead>(
        &mut self,
        reader: &mut DataReader<R>,
    ) -> anyhow::Result<Option<Value>> {
        match data::next_token(reader)? {
            None => Ok(None),
            Some(token) => self.user_value(self.type_ref, token, reader).map(Some),
        }
    }

    fn user_value<R: BufRead>(
        &self,
        type_ref: TypeRef,
        first: DataToken,
        reader: &mut DataReader<R>,
    ) -> anyhow::Result<Value> {
        let TypeRef::User(id) = type_ref else {
            bail!("expected a value of a user-defined type");
        };
        let user = self
            .dataset
            .user_type(id)
            .ok_or_else(|| anyhow!("unknown type"))?;
        if let DataToken::Constant(Constant::Fill, at) = first {
            let fill = self.fill_value(type_ref);
            if let (Value::Enum(v), UserTypeKind::Enum { members, .. }) = (&fill, &user.kind) {
                if !members.iter().any(|(_, m)| m == v) {
                    // As the reference: the type's default fill is no member of the enum.
                    bail!(
                        "{}: `_` needs a _FillValue for enum {}: its default fill {v} is not \
                         one of its constants",
                        place(&at),
                        user.name
                    );
                }
            }
            return Ok(fill);
        }
        match (&user.kind, first) {
            (UserTypeKind::Compound { fields }, DataToken::Open(_)) => {
                let mut values = Vec::with_capacity(fields.len());
                let mut closed = false;
                for field in fields {
                    let token = next_token(reader, &user.name)?;
                    if closed || matches!(token, DataToken::Close(_)) {
                        // Fields left out take their fill values, as in the reference.
                        closed = true;
                        values.push(self.field_fill(field));
                        continue;
                    }
                    values.push(self.field_values(field, token, reader)?);
                }
                if !closed {
                    expect_close(reader, &user.name)?;
                }
                Ok(Value::Compound(values))
            }
            (UserTypeKind::Vlen { base }, DataToken::Open(_)) => {
                let mut elements = Elements::new(*base);
                loop {
                    match next_token(reader, &user.name)? {
                        DataToken::Close(_) => break,
                        token => elements.push(self, token, reader)?,
                    }
                }
                Ok(Value::Vlen(elements.into_values()?))
            }
            (UserTypeKind::Opaque, DataToken::Constant(Constant::Opaque(bytes), _)) => {
                let mut bytes = bytes;
                bytes.resize(user.size, 0);
                Ok(Value::Opaque(bytes))
            }
            (UserTypeKind::Enum { members, .. }, DataToken::Constant(Constant::Name(path), at)) => {
                // `/g/e_t.A` or `e_t.A` name the type too; the member is after the dot.
                let last = path.last().map(String::as_str).unwrap_or_default();
                let name = last.rsplit('.').next().unwrap_or(last);
                members
                    .iter()
                    .find(|(m, _)| m == name || m == last)
                    .map(|(_, v)| Value::Enum(*v))
                    .ok_or_else(|| {
                        anyhow!(
                            "{}: {last} is not a constant of enum {}",
                            place(&at),
                            user.name
                        )
                    })
            }
            (UserTypeKind::Enum { .. }, DataToken::Constant(c, _)) => {
                let values = convert_constants(&[c], AtomicType::Int64)?;
                let v = values
                    .integer_at(0)
                    .ok_or_else(|| anyhow!("expected an enum constant of {}", user.name))?;
                Ok(Value::Enum(v))
            }
            (kind, _) => bail!("expected {} value of type {}", kind_name(kind), user.name),
        }
    }

    /// The value `_` stands for: the variable's `_FillValue` for its own type; otherwise
    /// each field's default fill value for a compound, a vlen of one fill value, an all-ones
    /// opaque,
    /// the base type's fill for an enum.
    pub fn fill_value(&self, type_ref: TypeRef) -> Value {
        if let (true, Some(fill)) = (type_ref == self.type_ref, &self.var_fill) {
            return fill.clone();
        }
        let user = match type_ref {
            TypeRef::User(id) => self.dataset.user_type(id),
            TypeRef::Atomic(_) => None,
        };
        match user.map(|u| (&u.kind, u.size)) {
            Some((UserTypeKind::Compound { fields }, _)) => {
                Value::Compound(fields.iter().map(|f| self.field_fill(f)).collect())
            }
            // As the reference: one element, the base type's fill.
            Some((UserTypeKind::Vlen { base }, _)) => Value::Vlen(match base {
                TypeRef::Atomic(t) => Values::default_fill(*t),
                TypeRef::User(_) => Values::User(vec![self.fill_value(*base)]),
            }),
            Some((UserTypeKind::Enum { base, .. }, _)) => {
                Value::Enum(Values::default_fill(*base).integer_at(0).unwrap_or(0))
            }
            Some((UserTypeKind::Opaque, size)) => Value::Opaque(vec![0xff; size]),
            None => Value::Opaque(Vec::new()),
        }
    }

    /// The fill values of one compound field (all its elements).
    fn field_fill(&self, field: &CompoundField) -> Values {
        let count: usize = field.dims.iter().product::<usize>().max(1);
        match field.type_ref {
            TypeRef::Atomic(t) => {
                let mut values = Values::empty(t);
                pad(&mut values, count, t);
                values
            }
            TypeRef::User(_) => Values::User(
                (0..count)
                    .map(|_| self.fill_value(field.type_ref))
                    .collect(),
            ),
        }
    }

    /// The values of one compound field: one value, or an array given flat or in braces.
    fn field_values<R: BufRead>(
        &self,
        field: &CompoundField,
        first: DataToken,
        reader: &mut DataReader<R>,
    ) -> anyhow::Result<Values> {
        let count: usize = field.dims.iter().product::<usize>().max(1);
        if let (TypeRef::Atomic(AtomicType::Char), DataToken::Constant(Constant::Str(text), _)) =
            (field.type_ref, &first)
        {
            let mut bytes = text.clone();
            bytes.resize(count, 0);
            return Ok(Values::Char(bytes));
        }
        let array = field.dims.iter().product::<usize>() > 1;
        let braced = array && matches!(first, DataToken::Open(_));
        if array && !braced {
            // As the reference ("Datalist longer than the number of compound fields").
            let at = match &first {
                DataToken::Constant(_, at) | DataToken::Open(at) | DataToken::Close(at) => *at,
            };
            bail!(
                "{}: the {count} values of array field {} go in braces, like {{1, 2, 3}}",
                place(&at),
                field.name
            );
        }
        let mut elements = Elements::new(field.type_ref);
        let mut token = if braced {
            next_token(reader, &field.name)?
        } else {
            first
        };
        let mut closed = false;
        loop {
            if braced && matches!(token, DataToken::Close(_)) {
                closed = true;
                break;
            }
            elements.push(self, token, reader)?;
            if elements.len() == count {
                break;
            }
            token = next_token(reader, &field.name)?;
        }
        if braced && !closed {
            expect_close(reader, &field.name)?;
        }
        let mut values = elements.into_values()?;
        if let TypeRef::Atomic(t) = field.type_ref {
            pad(&mut values, count, t);
        }
        Ok(values)
    }
}

/// Elements of an array of one type, gathered as they are read.
enum Elements {
    /// Constants of an atomic type, converted at the end.
    Atomic(AtomicType, Vec<Constant>),
    /// Values of a user-defined type, read as they come.
    User(TypeRef, Vec<Value>),
}

impl Elements {
    fn new(type_ref: TypeRef) -> Self {
        match type_ref {
            TypeRef::Atomic(t) => Self::Atomic(t, Vec::new()),
            TypeRef::User(_) => Self::User(type_ref, Vec::new()),
        }
    }

    fn len(&self) -> usize {
        match self {
            Self::Atomic(_, c) => c.len(),
            Self::User(_, v) => v.len(),
        }
    }

    fn push<R: BufRead>(
        &mut self,
        values: &UserValueReader,
        token: DataToken,
        reader: &mut DataReader<R>,
    ) -> anyhow::Result<()> {
        match (self, token) {
            (Self::Atomic(_, constants), DataToken::Constant(c, _)) => constants.push(c),
            (Self::Atomic(t, _), _) => {
                bail!("expected a value of type {}, found braces", t.cdl_name())
            }
            (Self::User(t, list), token) => list.push(values.user_value(*t, token, reader)?),
        }
        Ok(())
    }

    fn into_values(self) -> anyhow::Result<Values> {
        Ok(match self {
            Self::Atomic(t, constants) => convert_constants(&constants, t)?,
            Self::User(_, list) => Values::User(list),
        })
    }
}

fn kind_name(kind: &UserTypeKind) -> &'static str {
    match kind {
        UserTypeKind::Compound { .. } => "a braced compound",
        UserTypeKind::Vlen { .. } => "a braced vlen",
        UserTypeKind::Opaque => "an opaque (hex)",
        UserTypeKind::Enum { .. } => "an enum",
    }
}

fn next_token<R: BufRead>(reader: &mut DataReader<R>, what: &str) -> anyhow::Result<DataToken> {
    data::next_token(reader)?.ok_or_else(|| anyhow!("the data ends inside a value of {what}"))
}

fn expect_close<R: BufRead>(reader: &mut DataReader<R>, what: &str) -> anyhow::Result<()> {
    match next_token(reader, what)? {
        DataToken::Close(_) => Ok(()),
        _ => bail!("too many values in a value of {what}: expected `}}`"),
    }
}

/// Pads `values` with the type's default fill value up to `count` values.
fn pad(values: &mut Values, count: usize, t: AtomicType) {
    let fill = Values::default_fill(t);
    while values.len() < count && values.extend_from(&fill) {}
}
