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

layout(location = 0) in vec2 a_uv;
layout(location = 0) out vec4 o_color;

float hf(float f0, float f1) {
    return exp(u.time * (f1 - f0));
}

void main() {
    vec3 v0 = vec3(a_uv * 2.0 - vec2(1.0), -1.0);
    v0 = normalize(v0);
    float f1 = 1.0;
    vec3 v2 = vec3(0.0);
    for (int i3 = 0; i3 < 32; i3++) {
        vec3 v0 = u.eye + v0 * float(i3) * 0.5;
        float f1 = hf(v0.y, u.s[0].f) * 0.05;
        v2 += u.s[0].c.rgb * f1;
    }
    o_color = vec4(v2, 1.0);
}
