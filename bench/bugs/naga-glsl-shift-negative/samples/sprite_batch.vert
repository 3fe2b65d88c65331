#version 450

layout(set = 0, binding = 0) uniform Globals {
    vec2 screen_size;
    float time;
};

layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec2 a_uv;
layout(location = 2) in vec4 a_tint;

layout(location = 0) out vec2 v_uv;
layout(location = 1) out vec4 v_tint;

void main() {
    vec2 ndc = (a_pos / screen_size) * 2.0 - 1.0;
    v_uv = a_uv;
    v_tint = a_tint;
    gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
}
