// Pixel inputs SV_SampleIndex and SV_IsFrontFace, integer user inputs (flat), nested
// IO structs flattened field by field, inout entry parameters, vertex outputs with
// [[vk::location]].
struct Inner { float2 uv : TEXCOORD1; int id : ID; };
struct PSIn { float4 pos : SV_Position; Inner inner; };

[shader("pixel")]
float4 ps(PSIn i, uint si : SV_SampleIndex, bool front : SV_IsFrontFace) : SV_Target2
{
    return float4(i.inner.uv, (float)i.inner.id + si, front ? 1 : 0);
}

[shader("vertex")]
void vs(uint vid : SV_VertexID, inout float3 pos : POSITION, out float4 clip : SV_Position, [[vk::location(5)]] out float2 uv : UV)
{
    pos *= 2;
    clip = float4(pos, 1);
    uv = float2(vid, 0);
}
