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
layout(location = 1) in vec2 a_uv;
layout(location = 0) out vec4 o_color;

// Metallic-roughness PBR (GGX distribution, Schlick-GGX geometry, Schlick Fresnel).
float hf(float f0, float f1) {
    f2 = f1 * f1 * f1 * f1;
    f3 = f0 * f0 * (f2 - 1.0) + 1.0;
    return f2 / (f3 * f3 * 3.14159);
}

vec3 hv(vec3 v0, float f0) {
    f1 = clamp(1.0 - f0, 0.0, 1.0);
    return v0 + (vec3(1.0) - v0) * pow(f1, 5.0);
}

void main() {
    vec4 c0 = texture(sampler2D(tex, smp), a_uv) * u.tint;
    float f1 = u.s[0].f;
    vec3 v2 = normalize(o_normal);
    vec3 v3 = normalize(u.eye - a_pos);
    vec3 v4 = mix(vec3(0.04), c0.rgb, f1);
    vec3 v5 = vec3(0.0);
    for (int i0 = 0; i0 < 4; ++i0) {
        vec3 v0 = normalize(u.s[i0].c.xyz - a_pos);
        vec3 v1 = normalize(v3 + v0);
        float f2 = max(dot(v2, v0), 0.0);
        if (f2 <= 0.0) {
            continue;
        }
        vec3 v3 = hv(v4, max(dot(v1, v3), 0.0));
        float f4 = hf(max(dot(v2, v1), 0.0), u.s[i0].f);
        v5 += (vec3(1.0) - v3) * c0.rgb / 3.14159 + v3 * f4 * u.s[i0].c.rgb * f2;
    }
    o_color = vec4(v5 + u.eye * c0.rgb, c0.a);
}
