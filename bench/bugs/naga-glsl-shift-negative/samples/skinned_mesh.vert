#version 450

layout(set = 0, binding = 0) uniform Camera {
    mat4 view_proj;
};

layout(set = 2, binding = 0) uniform Skin {
    mat4 joints[64];
};

layout(location = 0) in vec3 a_position;
layout(location = 1) in uvec4 a_joints;
layout(location = 2) in vec4 a_weights;

void main() {
    mat4 skin = a_weights.x * joints[a_joints.x]
              + a_weights.y * joints[a_joints.y]
              + a_weights.z * joints[a_joints.z]
              + a_weights.w * joints[a_joints.w];
    gl_Position = view_proj * skin * vec4(a_position, 1.0);
}
