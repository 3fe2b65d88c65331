#version 450

layout(set = 0, binding = 0) uniform Camera {
    mat4 view;
    mat4 proj;
};

layout(set = 1, binding = 0) uniform Model {
    mat4 model;
};

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_uv;

layout(location = 0) out vec3 v_normal;
layout(location = 1) out vec2 v_uv;

void main() {
    v_normal = mat3(model) * a_normal;
    v_uv = a_uv;
    gl_Position = proj * view * model * vec4(a_position, 1.0);
}
