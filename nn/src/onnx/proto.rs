//! The ONNX messages the exporter writes, and their protobuf wire encoding.
//!
//! Only writing is needed, of a dozen message types and a few fields each, so the encoding is
//! written out here rather than generated: a protobuf code generator and runtime would cost more
//! compile time than these lines. Field numbers are those of `onnx.proto` (IR version 8); fields
//! left at their defaults are not written, as protobuf encoders do.

/// A tensor stored in the model: a weight, or a constant such as a shape.
pub(crate) struct TensorProto {
    pub name: String,
    pub dims: Vec<i64>,
    pub data: TensorValues,
}

/// The values of a [`TensorProto`], row-major.
pub(crate) enum TensorValues {
    F32(Vec<f32>),
    I64(Vec<i64>),
    /// Quantized weights.
    I8(Vec<i8>),
    /// Zero points of quantized activations.
    U8(Vec<u8>),
    /// Quantized biases.
    I32(Vec<i32>),
}

/// A node attribute.
#[derive(Clone)]
pub(crate) enum Attr {
    Int(&'static str, i64),
    Float(&'static str, f32),
    Ints(&'static str, Vec<i64>),
}

/// One operator application.
pub(crate) struct NodeProto {
    pub name: String,
    pub op_type: &'static str,
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    pub attrs: Vec<Attr>,
}

/// One axis of a graph input or output.
pub(crate) enum Dim {
    /// A fixed size.
    Fixed(usize),
    /// A size chosen by the caller at run time, named (`batch`).
    Named(&'static str),
}

/// A float32 graph input or output.
pub(crate) struct ValueInfo {
    pub name: String,
    /// Its shape; empty for a tensor whose shape is left to the runtime (an intermediate
    /// tensor read as an extra output), never a scalar here.
    pub dims: Vec<Dim>,
    pub doc: String,
}

/// The whole model.
pub(crate) struct ModelProto {
    pub producer_version: String,
    pub opset: i64,
    pub doc: String,
    pub metadata: Vec<(String, String)>,
    pub graph_name: String,
    pub nodes: Vec<NodeProto>,
    pub initializers: Vec<TensorProto>,
    pub inputs: Vec<ValueInfo>,
    pub outputs: Vec<ValueInfo>,
}

/// ONNX IR version 8 is the one that introduced opset 17; runtimes that read opset 17 read it.
const IR_VERSION: i64 = 8;

/// `TensorProto.DataType` values.
const FLOAT: i64 = 1;
const UINT8: i64 = 2;
const INT8: i64 = 3;
const INT32: i64 = 6;
const INT64: i64 = 7;

/// `AttributeProto.AttributeType` values.
const ATTR_FLOAT: i64 = 1;
const ATTR_INT: i64 = 2;
const ATTR_INTS: i64 = 7;

/// A message being written: fields are appended in order.
#[derive(Default)]
struct Msg(Vec<u8>);

impl Msg {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.0.push((v as u8 & 0x7f) | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
    }

    fn key(&mut self, field: u32, wire_type: u8) {
        self.varint(((field as u64) << 3) | wire_type as u64);
    }

    /// An int64, int32 or enum field (wire type 0). Negative values take ten bytes, as
    /// protobuf specifies for sign-extended integers.
    fn int(&mut self, field: u32, v: i64) {
        self.key(field, 0);
        self.varint(v as u64);
    }

    /// A float field (wire type 5, little-endian).
    fn float(&mut self, field: u32, v: f32) {
        self.key(field, 5);
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    /// A bytes, string or message field (wire type 2).
    fn bytes(&mut self, field: u32, b: &[u8]) {
        self.key(field, 2);
        self.varint(b.len() as u64);
        self.0.extend_from_slice(b);
    }

    fn string(&mut self, field: u32, s: &str) {
        self.bytes(field, s.as_bytes());
    }

    fn msg(&mut self, field: u32, m: Msg) {
        self.bytes(field, &m.0);
    }
}

fn tensor(t: &TensorProto) -> Msg {
    let mut m = Msg::default();
    for &d in &t.dims {
        m.int(1, d);
    }
    let (data_type, raw): (i64, Vec<u8>) = match &t.data {
        TensorValues::F32(v) => (FLOAT, v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        TensorValues::I64(v) => (INT64, v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        TensorValues::I8(v) => (INT8, v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        TensorValues::U8(v) => (UINT8, v.clone()),
        TensorValues::I32(v) => (INT32, v.iter().flat_map(|x| x.to_le_bytes()).collect()),
    };
    m.int(2, data_type);
    m.string(8, &t.name);
    // raw_data: little-endian values, the most compact form every runtime reads.
    m.bytes(9, &raw);
    m
}

fn attribute(a: &Attr) -> Msg {
    let mut m = Msg::default();
    match a {
        Attr::Int(name, v) => {
            m.string(1, name);
            m.int(3, *v);
            m.int(20, ATTR_INT);
        }
        Attr::Float(name, v) => {
            m.string(1, name);
            m.float(2, *v);
            m.int(20, ATTR_FLOAT);
        }
        Attr::Ints(name, vs) => {
            m.string(1, name);
            for &v in vs {
                m.int(8, v);
            }
            m.int(20, ATTR_INTS);
        }
    }
    m
}

fn node(n: &NodeProto) -> Msg {
    let mut m = Msg::default();
    for i in &n.inputs {
        m.string(1, i);
    }
    for o in &n.outputs {
        m.string(2, o);
    }
    m.string(3, &n.name);
    m.string(4, n.op_type);
    for a in &n.attrs {
        m.msg(5, attribute(a));
    }
    m
}

fn value_info(v: &ValueInfo) -> Msg {
    let mut shape = Msg::default();
    for d in &v.dims {
        let mut dim = Msg::default();
        match d {
            Dim::Fixed(n) => dim.int(1, *n as i64),
            Dim::Named(name) => dim.string(2, name),
        }
        shape.msg(1, dim);
    }
    let mut tensor_type = Msg::default();
    tensor_type.int(1, FLOAT);
    if !v.dims.is_empty() {
        tensor_type.msg(2, shape);
    }
    let mut ty = Msg::default();
    ty.msg(1, tensor_type);
    let mut m = Msg::default();
    m.string(1, &v.name);
    m.msg(2, ty);
    if !v.doc.is_empty() {
        m.string(3, &v.doc);
    }
    m
}

/// The serialized `ModelProto`.
pub(crate) fn encode(model: &ModelProto) -> Vec<u8> {
    let mut graph = Msg::default();
    for n in &model.nodes {
        graph.msg(1, node(n));
    }
    graph.string(2, &model.graph_name);
    for t in &model.initializers {
        graph.msg(5, tensor(t));
    }
    for v in &model.inputs {
        graph.msg(11, value_info(v));
    }
    for v in &model.outputs {
        graph.msg(12, value_info(v));
    }

    let mut m = Msg::default();
    m.int(1, IR_VERSION);
    m.string(2, "tafl");
    m.string(3, &model.producer_version);
    m.string(6, &model.doc);
    m.msg(7, graph);
    let mut opset = Msg::default();
    // The default ("" = ai.onnx) domain.
    opset.int(2, model.opset);
    m.msg(8, opset);
    for (k, v) in &model.metadata {
        let mut entry = Msg::default();
        entry.string(1, k);
        entry.string(2, v);
        m.msg(14, entry);
    }
    m.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_follow_the_protobuf_examples() {
        // The examples of the protobuf encoding guide: 1, 150 and 300.
        let mut m = Msg::default();
        m.int(1, 150);
        assert_eq!(m.0, [0x08, 0x96, 0x01]);
        let mut m = Msg::default();
        m.varint(300);
        assert_eq!(m.0, [0xac, 0x02]);
        let mut m = Msg::default();
        m.int(2, -1);
        assert_eq!(m.0.len(), 1 + 10);
    }

    #[test]
    fn strings_are_length_delimited() {
        let mut m = Msg::default();
        m.string(2, "testing");
        assert_eq!(m.0, [0x12, 0x07, b't', b'e', b's', b't', b'i', b'n', b'g']);
    }
}
