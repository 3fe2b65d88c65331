#version 450

layout(location = 0) out vec2 v_uv;

void main() {
    float x = float((gl_VertexIndex & 1) << 2);
    float y = float((gl_VertexIndex & 2) << 1);
    v_uv = vec2(x, y) * 0.5;
    gl_Position = vec4(x - 1.0, y - 1.0, 0.0, 1.0);
}
