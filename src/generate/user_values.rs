//! Values of user-defined types in CDL data: compounds `{f1, f2, {a1, a2}}`, vlens
//! `{v1, v2, ...}`, opaque hex constants and enum constants by name, nested as deep as the
//! types are.

use std::io::BufRead;

use anyhow::{anyhow, bail};
use cdl::parse::{
    enum_value, fit_field, is_char_constant, missing_fields, push_constant, Constant, DataReader,
    DataToken, Position,
};

use super::data::{self, place};
use ncmodel::{
    check_values, field_len, AtomicType, CompoundField, Dataset, TypeRef, UserTypeKind, Value,
    Values,
};

/// Reads values of one user-defined type from a data entry's tokens.
pub struct UserValueReader<'a> {
    dataset: &'a Dataset,
    type_ref: TypeRef,
    /// The variable's `_FillValue`, which `_` stands for.
    var_fill: Option<Value>,
    /// Values dropped as the reference drops them (`line L, column C: what`).
    dropped: Vec<String>,
}

impl<'a> UserValueReader<'a> {
    /// A reader of values of `type_ref` (a user-defined type of `dataset`) for a variable
    /// whose `_FillValue` is `var_fill`.
    pub fn new(dataset: &'a Dataset, type_ref: TypeRef, var_fill: Option<Value>) -> Self {
        Self {
            dataset,
            type_ref,
            var_fill,
            dropped: Vec::new(),
        }
    }

    /// Takes the notes on values dropped so far (each `line L, column C: what`), for
    /// warnings.
    pub fn take_dropped(&mut self) -> Vec<String> {
        std::mem::take(&mut self.dropped)
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
        let Some(token) = data::next_token(reader)? else {
            return Ok(None);
        };
        let at = token_place(&token);
        let value = self.user_value(self.type_ref, token, reader)?;
        // Never fails once the values are fitted: the last check before libnetcdf lays
        // them out in memory by their type alone.
        let one = Values::User(vec![value]);
        check_values(&self.dataset.types, self.type_ref, &one)
            .map_err(|m| anyhow!("{}: the value does not fit its type ({m})", place(&at)))?;
        let Values::User(mut list) = one else {
            bail!("{}: expected a value of a user-defined type", place(&at));
        };
        Ok(list.pop())
    }

    fn user_value<R: BufRead>(
        &mut self,
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
            (UserTypeKind::Compound { fields }, DataToken::Open(open)) => {
                let types = &self.dataset.types;
                let mut values = Vec::with_capacity(fields.len());
                let mut closed = false;
                for field in fields {
                    let token = next_token(reader, &user.name)?;
                    if matches!(token, DataToken::Close(_)) {
                        closed = true;
                        break;
                    }
                    let at = token_place(&token);
                    let given = self.field_values(&user.name, field, token, reader)?;
                    let (fitted, dropped) = fit_field(types, &user.name, field, given)
                        .map_err(|e| anyhow!("{}: {e}", place(&at)))?;
                    if dropped > 0 {
                        self.dropped.push(format!(
                            "{}: {dropped} value(s) beyond the {} of field {} of {} ignored",
                            place(&at),
                            field_len(field),
                            field.name,
                            user.name
                        ));
                    }
                    values.push(fitted);
                }
                if !closed {
                    expect_close(reader, &user.name, fields.len())?;
                }
                // Fields left out take fill values, as in the reference.
                let rest = fields.get(values.len()..).unwrap_or_default();
                let missing = missing_fields(types, &user.name, rest)
                    .map_err(|e| anyhow!("{}: {e}", place(&open)))?;
                values.extend(missing);
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
                Ok(Value::Vlen(elements.into_values()))
            }
            (UserTypeKind::Opaque, DataToken::Constant(Constant::Opaque(bytes), at)) => {
                let mut bytes = bytes;
                if bytes.len() > user.size {
                    self.dropped.push(format!(
                        "{}: opaque constant of {} bytes cut to the {} of {}",
                        place(&at),
                        bytes.len(),
                        user.size,
                        user.name
                    ));
                }
                bytes.resize(user.size, 0);
                Ok(Value::Opaque(bytes))
            }
            (UserTypeKind::Enum { .. }, DataToken::Constant(c, at)) => enum_value(user, &c)
                .map(Value::Enum)
                .map_err(|m| anyhow!("{}: {m}", place(&at))),
            (kind, token) => bail!(
                "{}: expected {} value of type {}",
                place(&token_place(&token)),
                kind_name(kind),
                user.name
            ),
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

    /// The values given for `field` of the compound `compound`, before they are fitted
    /// to its size: an array field's values go in braces (a string may stand for a
    /// `char` array), a scalar field's do not.
    fn field_values<R: BufRead>(
        &mut self,
        compound: &str,
        field: &CompoundField,
        first: DataToken,
        reader: &mut DataReader<R>,
    ) -> anyhow::Result<Values> {
        let array = !field.dims.is_empty();
        let at = token_place(&first);
        match (field.type_ref, first) {
            (TypeRef::Atomic(AtomicType::Char), DataToken::Constant(Constant::Str(text), _)) => {
                Ok(Values::Char(text))
            }
            (_, DataToken::Open(_)) if array => {
                let chars = field.type_ref == TypeRef::Atomic(AtomicType::Char);
                let mut elements = Elements::new(field.type_ref);
                loop {
                    match next_token(reader, &field.name)? {
                        DataToken::Close(_) => break,
                        DataToken::Constant(c, at) if chars && !is_char_constant(&c) => {
                            self.dropped.push(format!(
                                "{}: {} in char field {} of {compound} is not a string or \
                                 character constant; ignored",
                                place(&at),
                                c.describe(),
                                field.name
                            ));
                        }
                        token => elements.push(self, token, reader)?,
                    }
                }
                Ok(elements.into_values())
            }
            (_, _) if array => bail!(
                "{}: the {} values of array field {} of {compound} go in braces, like \
                 {{1, 2, 3}}",
                place(&at),
                field_len(field),
                field.name
            ),
            (TypeRef::Atomic(t), DataToken::Open(_)) => bail!(
                "{}: field {} of {compound} holds one {} value, not a list in braces",
                place(&at),
                field.name,
                t.cdl_name()
            ),
            (_, token) => {
                let mut elements = Elements::new(field.type_ref);
                elements.push(self, token, reader)?;
                Ok(elements.into_values())
            }
        }
    }
}

/// Elements of an array of one type, converted as they are read.
enum Elements {
    /// Values of an atomic type.
    Atomic(AtomicType, Values),
    /// Values of a user-defined type.
    User(TypeRef, Vec<Value>),
}

impl Elements {
    fn new(type_ref: TypeRef) -> Self {
        match type_ref {
            TypeRef::Atomic(t) => Self::Atomic(t, Values::empty(t)),
            TypeRef::User(_) => Self::User(type_ref, Vec::new()),
        }
    }

    fn push<R: BufRead>(
        &mut self,
        values: &mut UserValueReader,
        token: DataToken,
        reader: &mut DataReader<R>,
    ) -> anyhow::Result<()> {
        match (self, token) {
            (Self::Atomic(t, out), DataToken::Constant(c, at)) => {
                push_constant(out, &c, *t).map_err(|m| anyhow!("{}: {m}", place(&at)))?
            }
            (Self::Atomic(t, _), token) => {
                bail!(
                    "{}: expected a value of type {}, found braces",
                    place(&token_place(&token)),
                    t.cdl_name()
                )
            }
            (Self::User(t, list), token) => list.push(values.user_value(*t, token, reader)?),
        }
        Ok(())
    }

    fn into_values(self) -> Values {
        match self {
            Self::Atomic(_, values) => values,
            Self::User(_, list) => Values::User(list),
        }
    }
}

/// Where a data token starts.
fn token_place(token: &DataToken) -> Position {
    match token {
        DataToken::Constant(_, at) | DataToken::Open(at) | DataToken::Close(at) => *at,
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

/// Reads the `}` after the last field of a compound value of `what`.
fn expect_close<R: BufRead>(
    reader: &mut DataReader<R>,
    what: &str,
    fields: usize,
) -> anyhow::Result<()> {
    match next_token(reader, what)? {
        DataToken::Close(_) => Ok(()),
        token => bail!(
            "{}: more values than the {fields} fields of {what}: expected `}}`",
            place(&token_place(&token))
        ),
    }
}

/// Pads `values` with the type's default fill value up to `count` values.
fn pad(values: &mut Values, count: usize, t: AtomicType) {
    let fill = Values::default_fill(t);
    while values.len() < count && values.extend_from(&fill) {}
}
