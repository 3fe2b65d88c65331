#version 450
struct S { vec4 c; vec3 v; float f; };
layout(set = 0, binding = 0) uniform U { mat4 mvp; mat4 model; vec4 tint; vec3 eye; float time; ivec2 size; S s[4]; } u;
layout(set = 0, binding = 1) uniform texture2D tex;
layout(set = 0, binding = 2) uniform sampler smp;
layout(set = 0, binding = 3, rgba8) uniform image2D img;
layout(set = 0, binding = 4) buffer B { vec4 data[]; } buf;
vec3 a_pos; vec2 a_uv; vec4 a_color; vec4 o_color; vec3 o_normal; vec2 o_uv;
float f0, f1, f2, f3, f4, f5; vec2 p0, p1, p2, p3, p4, p5; vec3 v0, v1, v2, v3, v4, v5;
vec4 c0, c1, c2, c3, c4, c5; int i0, i1, i2, i3, i4, i5; uint n0, n1; mat3 m0; bool b0;
float hf(float f0, float f1); vec3 hv(vec3 v0, float f0); vec4 hc(vec2 p0);

layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec4 a_color;
layout(location = 0) out vec3 o_normal;

void main() {
    // Blend two bone transforms by the vertex weights.
    m0 = mat3(u.model) * mat3(u.mvp);
    vec3 v0 = m0 * a_pos;
    o_normal = normalize(m0 * v0);
    gl_Position = u.mvp * vec4(v0, 1.0);
}
