/* vkx: the small C side of waverig's Vulkan access.
 *
 * vulkan-go carries Vulkan 1.0 headers (1.1.88) and has no
 * vkGetPhysicalDeviceProperties2, no pNext structs for subgroup size control
 * and no way to put VkPipelineShaderStageRequiredSubgroupSizeCreateInfo on a
 * pipeline. This shim is compiled against the system <vulkan/vulkan.h>
 * (1.3.x) and loads every entry point through vkGetInstanceProcAddr /
 * vkGetDeviceProcAddr from a dlopen'ed loader, so a machine without Vulkan
 * still starts the binary and gets an error value instead of a link failure.
 *
 * Two halves:
 *   - capability query (vkx_query, vkx_device_extensions)
 *   - a runner context (vkx_ctx_*) that owns one logical device, one queue
 *     (graphics and compute where the device has such a family), a command
 *     pool, a fence, a descriptor pool, a pipeline cache and a set of
 *     reusable host-visible buffers ("slots"), sampled-image and sampler
 *     slots (vkx_image, vkx_sampler); it runs compute dispatches
 *     (vkx_dispatch) and draws into one colour attachment (vkx_draw).
 * All pNext chains live in C stack memory; Go never builds one.
 */
#ifndef WAVERIG_VKX_H
#define WAVERIG_VKX_H

#include <stdint.h>
/* Every entry point is loaded at run time; no prototype may be linked. */
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

/* Loader. vkx_load returns the loader's vkGetInstanceProcAddr (NULL when no
 * libvulkan could be opened; *why then says what failed). */
void *vkx_load(const char **why);
uint32_t vkx_instance_version(void);

/* VK_EXT_mesh_shader as the rig reads it (VkPhysicalDeviceMeshShaderFeaturesEXT
 * and VkPhysicalDeviceMeshShaderPropertiesEXT). */
typedef struct vkx_mesh_caps {
	uint32_t has_ext; /* VK_EXT_mesh_shader is among the device extensions */
	uint32_t f_task_shader;
	uint32_t f_mesh_shader;
	uint32_t max_task_work_group_total_count;
	uint32_t max_task_work_group_count[3];
	uint32_t max_task_work_group_invocations;
	uint32_t max_task_work_group_size[3];
	uint32_t max_task_payload_size;
	uint32_t max_mesh_work_group_total_count;
	uint32_t max_mesh_work_group_count[3];
	uint32_t max_mesh_work_group_invocations;
	uint32_t max_mesh_work_group_size[3];
	uint32_t max_mesh_output_vertices;
	uint32_t max_mesh_output_primitives;
	uint32_t max_preferred_task_work_group_invocations;
	uint32_t max_preferred_mesh_work_group_invocations;
} vkx_mesh_caps;

/* Flat copy of everything waverig reads from the Properties2/Features2
 * chains. Plain integers so Go can read it without cgo struct gymnastics. */
typedef struct vkx_caps {
	uint32_t api_version; /* min(instance, device) API version used for the chains */
	uint32_t has_props2;  /* vkGetPhysicalDeviceProperties2 (or KHR) was available */

	uint32_t has_driver_props;
	uint32_t driver_id;
	char driver_name[VK_MAX_DRIVER_NAME_SIZE];
	char driver_info[VK_MAX_DRIVER_INFO_SIZE];
	uint32_t conformance[4];

	uint32_t subgroup_size;
	uint32_t subgroup_stages;
	uint32_t subgroup_ops;
	uint32_t quad_all_stages;

	uint32_t has_size_control_props;
	uint32_t min_subgroup_size;
	uint32_t max_subgroup_size;
	uint32_t max_compute_workgroup_subgroups;
	uint32_t required_subgroup_size_stages;

	uint32_t f_subgroup_size_control;
	uint32_t f_compute_full_subgroups;
	uint32_t f_subgroup_extended_types;
	uint32_t f_float16;
	uint32_t f_int8;
	uint32_t f_int16;
	uint32_t f_int64;
	uint32_t f_float64;
	uint32_t f_storage_buffer_16bit;
	uint32_t f_storage_buffer_8bit;
	uint32_t f_subgroup_broadcast_dynamic_id;
	uint32_t f_vulkan_memory_model;
	uint32_t f_subgroup_uniform_control_flow;
	uint32_t f_subgroup_rotate;
	uint32_t f_subgroup_rotate_clustered;
	uint32_t f_quad_control;
	uint32_t f_maximal_reconvergence;
	/* VkPhysicalDeviceFeatures: storage writes from pixel / vertex stages */
	uint32_t f_fragment_stores_and_atomics;
	uint32_t f_vertex_pipeline_stores_and_atomics;

	uint32_t max_push_constants_size;
	uint32_t max_uniform_buffer_range;
	uint32_t max_storage_buffer_range;

	/* VK_EXT_mesh_shader: present, its two features the rig uses, and the
	 * properties a task/mesh job is checked against (mesh.h). */
	vkx_mesh_caps mesh;
} vkx_caps;

/* vkx_query fills *out. instance_api is the apiVersion the instance was
 * created with. Returns VK_SUCCESS or the failing VkResult. */
VkResult vkx_query(VkInstance inst, VkPhysicalDevice pd, uint32_t instance_api, vkx_caps *out);

/* vkx_device_extensions: call with props == NULL to get the count. */
VkResult vkx_device_extensions(VkInstance inst, VkPhysicalDevice pd, uint32_t *count,
                               VkExtensionProperties *props);

/* ---- runner: compute and draws ---- */

#define VKX_MAX_SLOTS 32
#define VKX_MAX_SETS 8

typedef struct vkx_ctx vkx_ctx;
typedef struct vkx_pipe vkx_pipe;

/* One descriptor binding of a pipeline layout / dispatch. type is a
 * VkDescriptorType (STORAGE_BUFFER, UNIFORM_BUFFER, SAMPLED_IMAGE or
 * SAMPLER); slot names a buffer slot, an image slot (vkx_image) or a
 * sampler slot (vkx_sampler) by the type. */
typedef struct vkx_binding {
	uint32_t set;
	uint32_t binding;
	uint32_t type;
	uint32_t slot; /* dispatch only: which buffer, image or sampler slot backs it */
	uint64_t size; /* dispatch only: bytes bound */
} vkx_binding;

/* Failure report: the Vulkan call that failed and its result. */
typedef struct vkx_err {
	const char *op;
	VkResult result;
} vkx_err;

/* vkx_ctx_create makes a logical device with one queue: from a family with
 * graphics and compute when there is one (Vulkan guarantees such a family
 * on any device with graphics), else a compute-only family, which leaves
 * vkx_ctx_graphics 0 and makes draws fail. It enables
 * every supported feature of the chains vkx_query reads (the way test
 * suites do, so any kernel the compiler emits can run) and the
 * subgroup-related extensions that are present. */
vkx_ctx *vkx_ctx_create(VkInstance inst, VkPhysicalDevice pd, uint32_t instance_api, vkx_err *err);
void vkx_ctx_destroy(vkx_ctx *c);
/* vkx_ctx_graphics: the context's queue supports graphics (draws). */
uint32_t vkx_ctx_graphics(const vkx_ctx *c);

/* vkx_pipe_create. flags are VkPipelineShaderStageCreateFlags; a nonzero
 * required_size chains VkPipelineShaderStageRequiredSubgroupSizeCreateInfo.
 * Go has checked both against the device caps. */
vkx_pipe *vkx_pipe_create(vkx_ctx *c, const uint32_t *spirv, size_t words, const char *entry,
                          const vkx_binding *b, uint32_t nb, uint32_t push_size,
                          uint32_t required_size, uint32_t flags, vkx_err *err);
void vkx_pipe_destroy(vkx_ctx *c, vkx_pipe *p);

/* vkx_slot makes slot hold at least size bytes and returns its mapped
 * (host-coherent) memory. Contents survive only until the slot grows. */
void *vkx_slot(vkx_ctx *c, uint32_t slot, uint64_t size, vkx_err *err);

/* vkx_dispatch records, submits and waits for one dispatch.
 * timeout_ns bounds the fence wait; on timeout the context is unusable. */
VkResult vkx_dispatch(vkx_ctx *c, vkx_pipe *p, const vkx_binding *b, uint32_t nb,
                      const void *push, uint32_t push_size, uint32_t gx, uint32_t gy,
                      uint32_t gz, uint64_t timeout_ns, vkx_err *err);

/* ---- sampled images and samplers ---- */

#define VKX_MAX_IMAGES 4
#define VKX_MAX_SAMPLERS 4
#define VKX_MAX_LEVELS 16

/* Formats of sampled images. */
enum {
	VKX_FORMAT_R16_SFLOAT = 1 /* VK_FORMAT_R16_SFLOAT */
};

/* vkx_format_features: the optimalTilingFeatures of a VKX_FORMAT_* (0 when
 * unknown). */
uint32_t vkx_format_features(vkx_ctx *c, uint32_t format);

/* vkx_image makes image slot idx a w x h sampled image (SAMPLED |
 * TRANSFER_DST, optimal tiling) with levels mip levels, copies data (total
 * bytes; level l, tightly packed, at offsets[l], each a multiple of 4)
 * into it through a staging buffer and leaves it in
 * SHADER_READ_ONLY_OPTIMAL, waiting for the upload. A binding of type
 * SAMPLED_IMAGE names the image by its slot. The image is kept while the
 * slot's next image has the same format, size and levels. */
VkResult vkx_image(vkx_ctx *c, uint32_t idx, uint32_t format, uint32_t w, uint32_t h,
                   uint32_t levels, const void *data, const uint64_t *offsets, uint64_t total,
                   vkx_err *err);

/* vkx_sampler makes sampler slot idx a sampler with these VkFilter,
 * VkSamplerMipmapMode and VkSamplerAddressMode values (all three
 * coordinates), LOD range [0, VK_LOD_CLAMP_NONE], normalized coordinates.
 * A binding of type SAMPLER names it by its slot. */
VkResult vkx_sampler(vkx_ctx *c, uint32_t idx, uint32_t mag, uint32_t min, uint32_t mip,
                     uint32_t address, vkx_err *err);

/* ---- draws ---- */

/* Colour attachment of a draw: none (vertex-stage jobs) or one RGBA32 target. */
enum {
	VKX_COLOR_NONE = 0,
	VKX_COLOR_RGBA32_UINT = 1,  /* VK_FORMAT_R32G32B32A32_UINT */
	VKX_COLOR_RGBA32_FLOAT = 2, /* VK_FORMAT_R32G32B32A32_SFLOAT */
	VKX_COLOR_COUNT = 3
};

/* One graphics pipeline. fs == NULL: no fragment stage and rasterizer
 * discard on. The viewport and scissor are fixed to width x height.
 * vs_size / fs_size: a nonzero value chains
 * VkPipelineShaderStageRequiredSubgroupSizeCreateInfo on that stage (Go
 * has checked the device lists the stage in requiredSubgroupSizeStages).
 * Bindings are visible to the vertex and fragment stages. */
typedef struct vkx_gfx_desc {
	const uint32_t *vs;
	size_t vs_words;
	const char *vs_entry;
	const uint32_t *fs;
	size_t fs_words;
	const char *fs_entry;
	uint32_t color; /* VKX_COLOR_* */
	uint32_t width, height;
	uint32_t vs_size, fs_size;
} vkx_gfx_desc;

vkx_pipe *vkx_gfx_pipe_create(vkx_ctx *c, const vkx_gfx_desc *d, const vkx_binding *b, uint32_t nb,
                              vkx_err *err);

/* vkx_draw records one render pass over a width x height target of
 * p's colour format (cleared to zero), with draws calls of
 * vkCmdDraw(vertex_count, 1, 0, i), copies the colour image to a
 * host-visible buffer, submits and waits. *color (when the pipeline has a
 * colour target) receives the mapped copy, width*height*16 bytes, valid
 * until the next draw. */
VkResult vkx_draw(vkx_ctx *c, vkx_pipe *p, const vkx_binding *b, uint32_t nb,
                  uint32_t vertex_count, uint32_t draws, uint64_t timeout_ns, void **color,
                  vkx_err *err);

/* ---- task and mesh shaders (VK_EXT_mesh_shader; mesh_impl.h) ---- */

/* One mesh pipeline: an optional task stage and a mesh stage, no vertex
 * input, rasterizer discard on and no fragment stage (the kernels write
 * storage buffers and emit no primitives), a 1x1 framebuffer without
 * attachments. task_size / mesh_size: a nonzero value chains
 * VkPipelineShaderStageRequiredSubgroupSizeCreateInfo on that stage (Go has
 * checked that requiredSubgroupSizeStages lists it). Bindings are visible to
 * the task and mesh stages. */
typedef struct vkx_mesh_desc {
	const uint32_t *ts; /* NULL: no task stage */
	size_t ts_words;
	const char *ts_entry;
	const uint32_t *ms;
	size_t ms_words;
	const char *ms_entry;
	uint32_t task_size, mesh_size;
} vkx_mesh_desc;

vkx_pipe *vkx_mesh_pipe_create(vkx_ctx *c, const vkx_mesh_desc *d, const vkx_binding *b,
                               uint32_t nb, vkx_err *err);

/* vkx_mesh_draw records one render pass with
 * vkCmdDrawMeshTasksEXT(gx, gy, gz), submits and waits. */
VkResult vkx_mesh_draw(vkx_ctx *c, vkx_pipe *p, const vkx_binding *b, uint32_t nb, uint32_t gx,
                       uint32_t gy, uint32_t gz, uint64_t timeout_ns, vkx_err *err);

/* vkx_ctx_mesh: the context enabled VK_EXT_mesh_shader (its draw is loaded). */
uint32_t vkx_ctx_mesh(const vkx_ctx *c);

#endif
