#version 450

layout(set = 0, binding = 0) uniform Params {
    mat4 mvp;
    float time;
    float amplitude;
};

layout(location = 0) in vec2 a_grid;
layout(location = 0) out float v_height;

float wave(vec2 p) {
    return sin(p.x * 4.0 + time) * cos(p.y * 3.0 - time * 0.5);
}

void main() {
    float h = amplitude * wave(a_grid);
    v_height = h;
    if (h < 0.0) {
        v_height = 0.0;
    }
    gl_Position = mvp * vec4(a_grid.x, h, a_grid.y, 1.0);
}
