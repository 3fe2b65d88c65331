use naga::front::glsl::{Options, Parser};
use naga::ShaderStage;

pub fn run(data: &[u8]) {
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = Parser::default().parse(&Options::from(ShaderStage::Vertex), s);
    }
}
