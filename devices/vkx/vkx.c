/* vkx.c: capability query and the compute/draw runner, see vkx.h. */
#include "vkx.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Structs of extensions newer than the 1.3.239 headers Debian 12 ships.
 * Layouts and sType values are from the Vulkan registry; guarded so newer
 * headers win. */
#ifndef VK_KHR_shader_subgroup_rotate
typedef struct VkPhysicalDeviceShaderSubgroupRotateFeaturesKHR {
	VkStructureType sType;
	void *pNext;
	VkBool32 shaderSubgroupRotate;
	VkBool32 shaderSubgroupRotateClustered;
} VkPhysicalDeviceShaderSubgroupRotateFeaturesKHR;
#define VKX_STYPE_ROTATE ((VkStructureType)1000416000)
#else
#define VKX_STYPE_ROTATE VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_ROTATE_FEATURES_KHR
#endif
#ifndef VK_KHR_shader_quad_control
typedef struct VkPhysicalDeviceShaderQuadControlFeaturesKHR {
	VkStructureType sType;
	void *pNext;
	VkBool32 shaderQuadControl;
} VkPhysicalDeviceShaderQuadControlFeaturesKHR;
#define VKX_STYPE_QUAD_CONTROL ((VkStructureType)1000235000)
#else
#define VKX_STYPE_QUAD_CONTROL VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_QUAD_CONTROL_FEATURES_KHR
#endif
#ifndef VK_KHR_shader_maximal_reconvergence
typedef struct VkPhysicalDeviceShaderMaximalReconvergenceFeaturesKHR {
	VkStructureType sType;
	void *pNext;
	VkBool32 shaderMaximalReconvergence;
} VkPhysicalDeviceShaderMaximalReconvergenceFeaturesKHR;
#define VKX_STYPE_MAXIMAL_RECONVERGENCE ((VkStructureType)1000434000)
#else
#define VKX_STYPE_MAXIMAL_RECONVERGENCE \
	VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_MAXIMAL_RECONVERGENCE_FEATURES_KHR
#endif

/* ---- loader ---- */

static void *libvk;
static PFN_vkGetInstanceProcAddr gipa;
static char load_err[256];

void *vkx_load(const char **why) {
	/* libvulkan.so.1 first: it is what the runtime package (libvulkan1)
	 * ships; the unversioned name exists only with libvulkan-dev. */
	static const char *names[] = {"libvulkan.so.1", "libvulkan.so", NULL};
	if (gipa != NULL)
		return (void *)gipa;
	for (int i = 0; names[i] != NULL && libvk == NULL; i++)
		libvk = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (libvk == NULL) {
		const char *e = dlerror();
		snprintf(load_err, sizeof load_err, "cannot open libvulkan.so.1 or libvulkan.so (last error: %s)",
		         e ? e : "not found");
		*why = load_err;
		return NULL;
	}
	gipa = (PFN_vkGetInstanceProcAddr)dlsym(libvk, "vkGetInstanceProcAddr");
	if (gipa == NULL) {
		*why = "libvulkan has no vkGetInstanceProcAddr";
		return NULL;
	}
	return (void *)gipa;
}

uint32_t vkx_instance_version(void) {
	PFN_vkEnumerateInstanceVersion f;
	uint32_t v = VK_API_VERSION_1_0;
	if (gipa == NULL)
		return 0;
	/* Absent in 1.0 loaders: that absence is the answer. */
	f = (PFN_vkEnumerateInstanceVersion)gipa(NULL, "vkEnumerateInstanceVersion");
	if (f != NULL && f(&v) != VK_SUCCESS)
		v = VK_API_VERSION_1_0;
	return v;
}

#define IFN(inst, name) ((PFN_##name)gipa((inst), #name))

static uint32_t minu(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* ---- extension list ---- */

typedef struct extlist {
	uint32_t n;
	VkExtensionProperties *p;
} extlist;

static VkResult ext_load(VkInstance inst, VkPhysicalDevice pd, extlist *l) {
	PFN_vkEnumerateDeviceExtensionProperties f = IFN(inst, vkEnumerateDeviceExtensionProperties);
	VkResult r;
	l->n = 0;
	l->p = NULL;
	if (f == NULL)
		return VK_ERROR_INITIALIZATION_FAILED;
	r = f(pd, NULL, &l->n, NULL);
	if (r != VK_SUCCESS || l->n == 0)
		return r;
	l->p = calloc(l->n, sizeof *l->p);
	if (l->p == NULL)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	r = f(pd, NULL, &l->n, l->p);
	if (r == VK_INCOMPLETE)
		r = VK_SUCCESS;
	return r;
}

static int ext_has(const extlist *l, const char *name) {
	for (uint32_t i = 0; i < l->n; i++)
		if (strcmp(l->p[i].extensionName, name) == 0)
			return 1;
	return 0;
}

VkResult vkx_device_extensions(VkInstance inst, VkPhysicalDevice pd, uint32_t *count,
                               VkExtensionProperties *props) {
	PFN_vkEnumerateDeviceExtensionProperties f = IFN(inst, vkEnumerateDeviceExtensionProperties);
	if (f == NULL)
		return VK_ERROR_INITIALIZATION_FAILED;
	return f(pd, NULL, count, props);
}

/* ---- feature chain (shared by the query and device creation) ---- */

/* One chain is built for both uses so the device enables exactly what was
 * reported. From 1.2 on the VulkanNNFeatures structs are used; before, the
 * per-extension structs (mixing both is invalid at vkCreateDevice). */
typedef struct featchain {
	VkPhysicalDeviceFeatures2 f2;
	VkPhysicalDeviceVulkan11Features v11;
	VkPhysicalDeviceVulkan12Features v12;
	VkPhysicalDeviceVulkan13Features v13;
	VkPhysicalDevice16BitStorageFeatures s16;
	VkPhysicalDevice8BitStorageFeatures s8;
	VkPhysicalDeviceShaderFloat16Int8Features f16i8;
	VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures xtypes;
	VkPhysicalDeviceVulkanMemoryModelFeatures vmm;
	VkPhysicalDeviceSubgroupSizeControlFeatures ssc;
	VkPhysicalDeviceShaderSubgroupUniformControlFlowFeaturesKHR ucf;
	VkPhysicalDeviceShaderSubgroupRotateFeaturesKHR rot;
	VkPhysicalDeviceShaderQuadControlFeaturesKHR quad;
	VkPhysicalDeviceShaderMaximalReconvergenceFeaturesKHR maxrc;
	VkPhysicalDeviceMeshShaderFeaturesEXT mesh;
	/* which structs are on the chain */
	int has_v12, has_v13, has_s16, has_s8, has_f16i8, has_xtypes, has_vmm, has_ssc, has_ucf,
	    has_rot, has_quad, has_maxrc, has_mesh;
} featchain;

#define LINK(tail, s, st)             \
	do {                              \
		(s).sType = (st);             \
		*(tail) = &(s);               \
		(tail) = &(s).pNext;          \
	} while (0)

/* quad control is only usable together with maximal reconvergence (its
 * extension dependency), so both are treated as one. */
/* VK_KHR_shader_quad_control requires VK_KHR_shader_maximal_reconvergence,
 * not the reverse: lavapipe from Mesa 25.0.7 has maximal reconvergence
 * without quad control, and the generated control-flow programs run under
 * the exact contract there. */
static int want_maxrc(const extlist *e) {
	return ext_has(e, "VK_KHR_shader_maximal_reconvergence");
}

static int want_quad(const extlist *e) {
	return ext_has(e, "VK_KHR_shader_quad_control") && want_maxrc(e);
}

static void chain_build(featchain *c, uint32_t api, const extlist *e) {
	void **tail;
	memset(c, 0, sizeof *c);
	c->f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
	tail = &c->f2.pNext;
	if (api >= VK_API_VERSION_1_2) {
		LINK(tail, c->v11, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
		LINK(tail, c->v12, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
		c->has_v12 = 1;
	} else {
		if (api >= VK_API_VERSION_1_1) {
			LINK(tail, c->s16, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES);
			c->has_s16 = 1;
		}
		if (ext_has(e, "VK_KHR_8bit_storage")) {
			LINK(tail, c->s8, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES);
			c->has_s8 = 1;
		}
		if (ext_has(e, "VK_KHR_shader_float16_int8")) {
			LINK(tail, c->f16i8, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES);
			c->has_f16i8 = 1;
		}
		if (ext_has(e, "VK_KHR_shader_subgroup_extended_types")) {
			LINK(tail, c->xtypes,
			     VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES);
			c->has_xtypes = 1;
		}
		if (ext_has(e, "VK_KHR_vulkan_memory_model")) {
			LINK(tail, c->vmm, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES);
			c->has_vmm = 1;
		}
	}
	if (api >= VK_API_VERSION_1_3) {
		LINK(tail, c->v13, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES);
		c->has_v13 = 1;
	} else if (ext_has(e, "VK_EXT_subgroup_size_control")) {
		LINK(tail, c->ssc, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES);
		c->has_ssc = 1;
	}
	if (ext_has(e, "VK_KHR_shader_subgroup_uniform_control_flow")) {
		LINK(tail, c->ucf,
		     VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_UNIFORM_CONTROL_FLOW_FEATURES_KHR);
		c->has_ucf = 1;
	}
	if (ext_has(e, "VK_KHR_shader_subgroup_rotate")) {
		LINK(tail, c->rot, VKX_STYPE_ROTATE);
		c->has_rot = 1;
	}
	if (want_maxrc(e)) {
		LINK(tail, c->maxrc, VKX_STYPE_MAXIMAL_RECONVERGENCE);
		c->has_maxrc = 1;
	}
	if (want_quad(e)) {
		LINK(tail, c->quad, VKX_STYPE_QUAD_CONTROL);
		c->has_quad = 1;
	}
	/* Only where the extension is present: naming the struct elsewhere is
	 * invalid at vkCreateDevice. */
	if (ext_has(e, "VK_EXT_mesh_shader")) {
		LINK(tail, c->mesh, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT);
		c->has_mesh = 1;
	}
}

static PFN_vkGetPhysicalDeviceFeatures2 features2_fn(VkInstance inst, uint32_t instance_api) {
	if (instance_api >= VK_API_VERSION_1_1)
		return IFN(inst, vkGetPhysicalDeviceFeatures2);
	return (PFN_vkGetPhysicalDeviceFeatures2)gipa(inst, "vkGetPhysicalDeviceFeatures2KHR");
}

/* ---- query ---- */

static void copy3(uint32_t dst[3], const uint32_t src[3]) {
	for (int i = 0; i < 3; i++)
		dst[i] = src[i];
}

/* mesh_props_copy flattens the mesh-shader properties the rig reads. */
static void mesh_props_copy(vkx_mesh_caps *m, const VkPhysicalDeviceMeshShaderPropertiesEXT *p) {
	m->max_task_work_group_total_count = p->maxTaskWorkGroupTotalCount;
	copy3(m->max_task_work_group_count, p->maxTaskWorkGroupCount);
	m->max_task_work_group_invocations = p->maxTaskWorkGroupInvocations;
	copy3(m->max_task_work_group_size, p->maxTaskWorkGroupSize);
	m->max_task_payload_size = p->maxTaskPayloadSize;
	m->max_mesh_work_group_total_count = p->maxMeshWorkGroupTotalCount;
	copy3(m->max_mesh_work_group_count, p->maxMeshWorkGroupCount);
	m->max_mesh_work_group_invocations = p->maxMeshWorkGroupInvocations;
	copy3(m->max_mesh_work_group_size, p->maxMeshWorkGroupSize);
	m->max_mesh_output_vertices = p->maxMeshOutputVertices;
	m->max_mesh_output_primitives = p->maxMeshOutputPrimitives;
	m->max_preferred_task_work_group_invocations = p->maxPreferredTaskWorkGroupInvocations;
	m->max_preferred_mesh_work_group_invocations = p->maxPreferredMeshWorkGroupInvocations;
}

VkResult vkx_query(VkInstance inst, VkPhysicalDevice pd, uint32_t instance_api, vkx_caps *out) {
	PFN_vkGetPhysicalDeviceProperties props1 = IFN(inst, vkGetPhysicalDeviceProperties);
	PFN_vkGetPhysicalDeviceProperties2 props2 = NULL;
	PFN_vkGetPhysicalDeviceFeatures2 feats2 = features2_fn(inst, instance_api);
	VkPhysicalDeviceProperties base;
	VkPhysicalDeviceProperties2 p2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
	VkPhysicalDeviceSubgroupProperties sg = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
	VkPhysicalDeviceDriverProperties drv = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
	VkPhysicalDeviceSubgroupSizeControlProperties ssc = {
	    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
	VkPhysicalDeviceMeshShaderPropertiesEXT mesh = {
	    VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_PROPERTIES_EXT};
	featchain fc;
	extlist e;
	void **tail = &p2.pNext;
	VkResult r;
	uint32_t api;

	memset(out, 0, sizeof *out);
	if (props1 == NULL)
		return VK_ERROR_INITIALIZATION_FAILED;
	props1(pd, &base);
	/* The structs a query may name are bounded by the lower of the instance
	 * and device versions. */
	api = minu(instance_api, base.apiVersion);
	out->api_version = api;
	out->max_push_constants_size = base.limits.maxPushConstantsSize;
	out->max_uniform_buffer_range = base.limits.maxUniformBufferRange;
	out->max_storage_buffer_range = base.limits.maxStorageBufferRange;

	r = ext_load(inst, pd, &e);
	if (r != VK_SUCCESS) {
		free(e.p);
		return r;
	}
	if (instance_api >= VK_API_VERSION_1_1)
		props2 = IFN(inst, vkGetPhysicalDeviceProperties2);
	else
		props2 = (PFN_vkGetPhysicalDeviceProperties2)gipa(inst, "vkGetPhysicalDeviceProperties2KHR");

	if (props2 != NULL) {
		out->has_props2 = 1;
		if (api >= VK_API_VERSION_1_1) {
			*tail = &sg;
			tail = &sg.pNext;
		}
		if (api >= VK_API_VERSION_1_2 || ext_has(&e, "VK_KHR_driver_properties")) {
			*tail = &drv;
			tail = &drv.pNext;
			out->has_driver_props = 1;
		}
		if (api >= VK_API_VERSION_1_3 || ext_has(&e, "VK_EXT_subgroup_size_control")) {
			*tail = &ssc;
			tail = &ssc.pNext;
			out->has_size_control_props = 1;
		}
		if (ext_has(&e, "VK_EXT_mesh_shader")) {
			*tail = &mesh;
			tail = &mesh.pNext;
			out->mesh.has_ext = 1;
		}
		props2(pd, &p2);
		out->subgroup_size = sg.subgroupSize;
		out->subgroup_stages = sg.supportedStages;
		out->subgroup_ops = sg.supportedOperations;
		out->quad_all_stages = sg.quadOperationsInAllStages;
		out->driver_id = drv.driverID;
		memcpy(out->driver_name, drv.driverName, sizeof out->driver_name);
		memcpy(out->driver_info, drv.driverInfo, sizeof out->driver_info);
		out->conformance[0] = drv.conformanceVersion.major;
		out->conformance[1] = drv.conformanceVersion.minor;
		out->conformance[2] = drv.conformanceVersion.subminor;
		out->conformance[3] = drv.conformanceVersion.patch;
		out->min_subgroup_size = ssc.minSubgroupSize;
		out->max_subgroup_size = ssc.maxSubgroupSize;
		out->max_compute_workgroup_subgroups = ssc.maxComputeWorkgroupSubgroups;
		out->required_subgroup_size_stages = ssc.requiredSubgroupSizeStages;
		mesh_props_copy(&out->mesh, &mesh);
	}

	chain_build(&fc, api, &e);
	if (feats2 != NULL) {
		feats2(pd, &fc.f2);
	} else {
		PFN_vkGetPhysicalDeviceFeatures f1 = IFN(inst, vkGetPhysicalDeviceFeatures);
		if (f1 != NULL)
			f1(pd, &fc.f2.features);
	}
	out->f_int16 = fc.f2.features.shaderInt16;
	out->f_int64 = fc.f2.features.shaderInt64;
	out->f_float64 = fc.f2.features.shaderFloat64;
	if (fc.has_v12) {
		out->f_storage_buffer_16bit = fc.v11.storageBuffer16BitAccess;
		out->f_storage_buffer_8bit = fc.v12.storageBuffer8BitAccess;
		out->f_float16 = fc.v12.shaderFloat16;
		out->f_int8 = fc.v12.shaderInt8;
		out->f_subgroup_extended_types = fc.v12.shaderSubgroupExtendedTypes;
		out->f_subgroup_broadcast_dynamic_id = fc.v12.subgroupBroadcastDynamicId;
		out->f_vulkan_memory_model = fc.v12.vulkanMemoryModel;
	} else {
		out->f_storage_buffer_16bit = fc.s16.storageBuffer16BitAccess;
		out->f_storage_buffer_8bit = fc.s8.storageBuffer8BitAccess;
		out->f_float16 = fc.f16i8.shaderFloat16;
		out->f_int8 = fc.f16i8.shaderInt8;
		out->f_subgroup_extended_types = fc.xtypes.shaderSubgroupExtendedTypes;
		out->f_vulkan_memory_model = fc.vmm.vulkanMemoryModel;
	}
	if (fc.has_v13) {
		out->f_subgroup_size_control = fc.v13.subgroupSizeControl;
		out->f_compute_full_subgroups = fc.v13.computeFullSubgroups;
	} else {
		out->f_subgroup_size_control = fc.ssc.subgroupSizeControl;
		out->f_compute_full_subgroups = fc.ssc.computeFullSubgroups;
	}
	out->f_subgroup_uniform_control_flow = fc.ucf.shaderSubgroupUniformControlFlow;
	out->f_subgroup_rotate = fc.rot.shaderSubgroupRotate;
	out->f_subgroup_rotate_clustered = fc.rot.shaderSubgroupRotateClustered;
	out->f_quad_control = fc.quad.shaderQuadControl;
	out->f_maximal_reconvergence = fc.maxrc.shaderMaximalReconvergence;
	out->f_fragment_stores_and_atomics = fc.f2.features.fragmentStoresAndAtomics;
	out->f_vertex_pipeline_stores_and_atomics = fc.f2.features.vertexPipelineStoresAndAtomics;
	out->mesh.f_task_shader = fc.mesh.taskShader;
	out->mesh.f_mesh_shader = fc.mesh.meshShader;
	free(e.p);
	return VK_SUCCESS;
}

/* ---- runner: compute and draws ---- */

/* Device-level entry points, loaded through vkGetDeviceProcAddr so calls
 * skip the loader trampoline. */
#define VKX_DEVICE_FNS(X)                                                                      \
	X(vkDestroyDevice) X(vkGetDeviceQueue) X(vkDeviceWaitIdle) X(vkCreateCommandPool)          \
	X(vkDestroyCommandPool) X(vkResetCommandPool) X(vkAllocateCommandBuffers)                  \
	X(vkBeginCommandBuffer) X(vkEndCommandBuffer) X(vkCmdBindPipeline)                         \
	X(vkCmdBindDescriptorSets) X(vkCmdPushConstants) X(vkCmdDispatch) X(vkCmdPipelineBarrier)  \
	X(vkQueueSubmit) X(vkCreateFence) X(vkDestroyFence) X(vkResetFences) X(vkWaitForFences)    \
	X(vkCreateDescriptorPool) X(vkDestroyDescriptorPool) X(vkResetDescriptorPool)              \
	X(vkAllocateDescriptorSets) X(vkUpdateDescriptorSets) X(vkCreateDescriptorSetLayout)       \
	X(vkDestroyDescriptorSetLayout) X(vkCreatePipelineLayout) X(vkDestroyPipelineLayout)       \
	X(vkCreateShaderModule) X(vkDestroyShaderModule) X(vkCreateComputePipelines)               \
	X(vkDestroyPipeline) X(vkCreatePipelineCache) X(vkDestroyPipelineCache) X(vkCreateBuffer)  \
	X(vkDestroyBuffer) X(vkGetBufferMemoryRequirements) X(vkAllocateMemory) X(vkFreeMemory)    \
	X(vkBindBufferMemory) X(vkMapMemory) X(vkCreateGraphicsPipelines) X(vkCreateRenderPass)      \
	X(vkDestroyRenderPass) X(vkCreateImage) X(vkDestroyImage) X(vkGetImageMemoryRequirements)  \
	X(vkBindImageMemory) X(vkCreateImageView) X(vkDestroyImageView) X(vkCreateFramebuffer)     \
	X(vkDestroyFramebuffer) X(vkCmdBeginRenderPass) X(vkCmdEndRenderPass) X(vkCmdDraw)         \
	X(vkCmdCopyImageToBuffer) X(vkCmdCopyBufferToImage) X(vkCreateSampler) X(vkDestroySampler)

typedef struct slot {
	VkBuffer buf;
	VkDeviceMemory mem;
	uint64_t cap;
	void *map;
} slot;

/* The colour target of draws: one image, view and framebuffer, kept while
 * consecutive draws use the same format and size. */
typedef struct target {
	uint32_t color, width, height;
	VkImage image;
	VkDeviceMemory mem;
	VkImageView view;
	VkFramebuffer fb;
} target;

/* A sampled image of a job (vkx_image): kept while the next job's image in
 * the slot has the same format, size and level count; only its contents are
 * uploaded again. */
typedef struct image {
	uint32_t format, width, height, levels;
	VkImage image;
	VkDeviceMemory mem;
	VkImageView view;
} image;

/* A sampler of a job (vkx_sampler), kept while its modes stay the same. */
typedef struct sampler {
	uint32_t mag, min, mip, address;
	VkSampler s;
} sampler;

struct vkx_ctx {
	VkDevice dev;
	PFN_vkGetPhysicalDeviceFormatProperties format_props;
	VkPhysicalDevice pd;
	int graphics; /* the queue supports graphics */
	VkQueue queue;
	VkCommandPool cpool;
	VkCommandBuffer cmd;
	VkFence fence;
	VkDescriptorPool dpool;
	VkPipelineCache pcache;
	VkPhysicalDeviceMemoryProperties mem;
	slot slots[VKX_MAX_SLOTS];
	slot readback; /* the colour image copied for the host */
	slot staging;  /* texel uploads of vkx_image */
	image images[VKX_MAX_IMAGES];
	sampler samplers[VKX_MAX_SAMPLERS];
	/* One render pass per colour format, made on first use; every pipeline
	 * and framebuffer of that format is built against it, so they are all
	 * compatible with each other. */
	VkRenderPass rpass[VKX_COLOR_COUNT];
	/* Guards rpass: pipelines are created on several threads at once (the
	 * runner's prebuild), and each may make its format's pass first. */
	pthread_mutex_t rpass_mu;
	target tgt;
	int broken; /* a fence wait timed out: the device may still be running */
	/* VK_EXT_mesh_shader's draw, NULL unless the extension was enabled. */
	PFN_vkCmdDrawMeshTasksEXT vkCmdDrawMeshTasksEXT;
#define X(name) PFN_##name name;
	VKX_DEVICE_FNS(X)
#undef X
};

struct vkx_pipe {
	VkPipeline pipe;
	VkPipelineBindPoint bind;
	VkShaderStageFlags stages; /* stages the descriptors are visible to */
	uint32_t color, width, height; /* graphics only */
	VkPipelineLayout layout;
	VkDescriptorSetLayout sets[VKX_MAX_SETS];
	uint32_t nsets;
	uint32_t push_size;
};

#define FAIL(e, o, r)           \
	do {                        \
		(e)->op = (o);          \
		(e)->result = (r);      \
	} while (0)

/* Extensions the runner turns on when present. Promoted ones are harmless
 * to name on newer devices; the feature structs above follow the version. */
static const char *wanted_ext[] = {
    "VK_KHR_portability_subset", /* must be enabled where it exists (MoltenVK) */
    "VK_EXT_subgroup_size_control",
    "VK_KHR_shader_subgroup_extended_types",
    "VK_KHR_shader_float16_int8",
    "VK_KHR_8bit_storage",
    "VK_KHR_16bit_storage",
    "VK_KHR_storage_buffer_storage_class",
    "VK_KHR_vulkan_memory_model",
    "VK_KHR_shader_float_controls",
    "VK_KHR_spirv_1_4",
    "VK_KHR_shader_subgroup_uniform_control_flow",
    "VK_KHR_shader_subgroup_rotate",
    "VK_NV_shader_subgroup_partitioned",
    "VK_EXT_mesh_shader", /* task and mesh kernels (mesh.h); needs SPIR-V 1.4 */
    NULL,
};

static void slot_free(vkx_ctx *c, slot *s) {
	if (s->buf)
		c->vkDestroyBuffer(c->dev, s->buf, NULL);
	if (s->mem)
		c->vkFreeMemory(c->dev, s->mem, NULL);
	memset(s, 0, sizeof *s);
}

static void image_free(vkx_ctx *c, image *im) {
	if (im->view)
		c->vkDestroyImageView(c->dev, im->view, NULL);
	if (im->image)
		c->vkDestroyImage(c->dev, im->image, NULL);
	if (im->mem)
		c->vkFreeMemory(c->dev, im->mem, NULL);
	memset(im, 0, sizeof *im);
}

static void sampler_free(vkx_ctx *c, sampler *sm) {
	if (sm->s)
		c->vkDestroySampler(c->dev, sm->s, NULL);
	memset(sm, 0, sizeof *sm);
}

static void target_free(vkx_ctx *c) {
	target *t = &c->tgt;
	if (t->fb)
		c->vkDestroyFramebuffer(c->dev, t->fb, NULL);
	if (t->view)
		c->vkDestroyImageView(c->dev, t->view, NULL);
	if (t->image)
		c->vkDestroyImage(c->dev, t->image, NULL);
	if (t->mem)
		c->vkFreeMemory(c->dev, t->mem, NULL);
	memset(t, 0, sizeof *t);
}

uint32_t vkx_ctx_graphics(const vkx_ctx *c) { return c != NULL && c->graphics; }

void vkx_ctx_destroy(vkx_ctx *c) {
	if (c == NULL)
		return;
	if (c->dev != VK_NULL_HANDLE) {
		/* After a timed-out dispatch waiting could hang forever; leak
		 * instead of destroying objects the device may still use. */
		if (c->broken) {
			pthread_mutex_destroy(&c->rpass_mu);
			free(c);
			return;
		}
		c->vkDeviceWaitIdle(c->dev);
		for (int i = 0; i < VKX_MAX_SLOTS; i++)
			slot_free(c, &c->slots[i]);
		slot_free(c, &c->readback);
		slot_free(c, &c->staging);
		for (int i = 0; i < VKX_MAX_IMAGES; i++)
			image_free(c, &c->images[i]);
		for (int i = 0; i < VKX_MAX_SAMPLERS; i++)
			sampler_free(c, &c->samplers[i]);
		target_free(c);
		for (int i = 0; i < VKX_COLOR_COUNT; i++)
			if (c->rpass[i])
				c->vkDestroyRenderPass(c->dev, c->rpass[i], NULL);
		if (c->pcache)
			c->vkDestroyPipelineCache(c->dev, c->pcache, NULL);
		if (c->dpool)
			c->vkDestroyDescriptorPool(c->dev, c->dpool, NULL);
		if (c->fence)
			c->vkDestroyFence(c->dev, c->fence, NULL);
		if (c->cpool)
			c->vkDestroyCommandPool(c->dev, c->cpool, NULL);
		c->vkDestroyDevice(c->dev, NULL);
	}
	pthread_mutex_destroy(&c->rpass_mu);
	free(c);
}

vkx_ctx *vkx_ctx_create(VkInstance inst, VkPhysicalDevice pd, uint32_t instance_api, vkx_err *err) {
	PFN_vkGetPhysicalDeviceProperties props1 = IFN(inst, vkGetPhysicalDeviceProperties);
	PFN_vkGetPhysicalDeviceQueueFamilyProperties qfp =
	    IFN(inst, vkGetPhysicalDeviceQueueFamilyProperties);
	PFN_vkGetPhysicalDeviceMemoryProperties memp = IFN(inst, vkGetPhysicalDeviceMemoryProperties);
	PFN_vkCreateDevice create = IFN(inst, vkCreateDevice);
	PFN_vkGetDeviceProcAddr gdpa = IFN(inst, vkGetDeviceProcAddr);
	PFN_vkGetPhysicalDeviceFeatures2 feats2 = features2_fn(inst, instance_api);
	VkPhysicalDeviceProperties base;
	VkQueueFamilyProperties qf[32];
	uint32_t nqf = 32, family = UINT32_MAX, api;
	int graphics;
	const char *names[32];
	uint32_t nnames = 0;
	float prio = 1.0f;
	featchain fc;
	extlist e;
	VkResult r;
	vkx_ctx *c;

	if (!props1 || !qfp || !memp || !create || !gdpa) {
		FAIL(err, "vkGetInstanceProcAddr", VK_ERROR_INITIALIZATION_FAILED);
		return NULL;
	}
	props1(pd, &base);
	api = minu(instance_api, base.apiVersion);
	qfp(pd, &nqf, qf);
	/* A graphics+compute family serves both dispatches and draws; a
	 * compute-only family is the fallback for compute-only devices. */
	for (uint32_t i = 0; i < nqf && family == UINT32_MAX; i++)
		if ((qf[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) ==
		    (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))
			family = i;
	graphics = family != UINT32_MAX;
	for (uint32_t i = 0; i < nqf && family == UINT32_MAX; i++)
		if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
			family = i;
	if (family == UINT32_MAX) {
		FAIL(err, "no compute queue family", VK_ERROR_FEATURE_NOT_PRESENT);
		return NULL;
	}
	r = ext_load(inst, pd, &e);
	if (r != VK_SUCCESS) {
		free(e.p);
		FAIL(err, "vkEnumerateDeviceExtensionProperties", r);
		return NULL;
	}
	for (int i = 0; wanted_ext[i] != NULL; i++)
		if (ext_has(&e, wanted_ext[i]))
			names[nnames++] = wanted_ext[i];
	if (want_maxrc(&e))
		names[nnames++] = "VK_KHR_shader_maximal_reconvergence";
	if (want_quad(&e))
		names[nnames++] = "VK_KHR_shader_quad_control";
	/* Query into the chain and hand the same chain to vkCreateDevice:
	 * everything reported is enabled, fragmentStoresAndAtomics and
	 * vertexPipelineStoresAndAtomics included (pixel and vertex kernels
	 * write their records to storage buffers). */
	chain_build(&fc, api, &e);
	free(e.p);
	if (feats2 != NULL)
		feats2(pd, &fc.f2);
	/* Capture/replay and multi-device addresses cost speed and are never
	 * used by a test kernel. */
	fc.v12.bufferDeviceAddressCaptureReplay = VK_FALSE;
	fc.v12.bufferDeviceAddressMultiDevice = VK_FALSE;
	/* Update-after-bind descriptors are never used either, and enabling
	 * them beside robustBufferAccess is invalid where the device's
	 * robustBufferAccessUpdateAfterBind is false (SwiftShader 5.0.0:
	 * VUID-VkDeviceCreateInfo-robustBufferAccess-10247, found by the
	 * validation layer). */
	fc.v12.descriptorBindingUniformBufferUpdateAfterBind = VK_FALSE;
	fc.v12.descriptorBindingSampledImageUpdateAfterBind = VK_FALSE;
	fc.v12.descriptorBindingStorageImageUpdateAfterBind = VK_FALSE;
	fc.v12.descriptorBindingStorageBufferUpdateAfterBind = VK_FALSE;
	fc.v12.descriptorBindingUniformTexelBufferUpdateAfterBind = VK_FALSE;
	fc.v12.descriptorBindingStorageTexelBufferUpdateAfterBind = VK_FALSE;
	/* Of VK_EXT_mesh_shader only taskShader and meshShader are used; the
	 * others need features the rig does not enable
	 * (primitiveFragmentShadingRateMeshShader: primitiveFragmentShadingRate)
	 * or cost queries nobody makes. */
	fc.mesh.multiviewMeshShader = VK_FALSE;
	fc.mesh.primitiveFragmentShadingRateMeshShader = VK_FALSE;
	fc.mesh.meshShaderQueries = VK_FALSE;

	c = calloc(1, sizeof *c);
	if (c == NULL) {
		FAIL(err, "calloc", VK_ERROR_OUT_OF_HOST_MEMORY);
		return NULL;
	}
	pthread_mutex_init(&c->rpass_mu, NULL);
	{
		VkDeviceQueueCreateInfo qi = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
		VkDeviceCreateInfo di = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
		qi.queueFamilyIndex = family;
		qi.queueCount = 1;
		qi.pQueuePriorities = &prio;
		di.queueCreateInfoCount = 1;
		di.pQueueCreateInfos = &qi;
		di.enabledExtensionCount = nnames;
		di.ppEnabledExtensionNames = names;
		if (feats2 != NULL)
			di.pNext = &fc.f2;
		else
			di.pEnabledFeatures = &fc.f2.features;
		r = create(pd, &di, NULL, &c->dev);
		if (r != VK_SUCCESS) {
			c->dev = VK_NULL_HANDLE;
			FAIL(err, "vkCreateDevice", r);
			free(c);
			return NULL;
		}
	}
#define X(name)                                             \
	c->name = (PFN_##name)gdpa(c->dev, #name);              \
	if (c->name == NULL) {                                  \
		FAIL(err, "vkGetDeviceProcAddr(" #name ")",         \
		     VK_ERROR_INITIALIZATION_FAILED);               \
		goto fail_nodev;                                    \
	}
	VKX_DEVICE_FNS(X)
#undef X
	if (fc.has_mesh && (fc.mesh.taskShader || fc.mesh.meshShader))
		c->vkCmdDrawMeshTasksEXT = (PFN_vkCmdDrawMeshTasksEXT)gdpa(c->dev, "vkCmdDrawMeshTasksEXT");
	memp(pd, &c->mem);
	c->pd = pd;
	c->format_props = IFN(inst, vkGetPhysicalDeviceFormatProperties);
	c->graphics = graphics;
	c->vkGetDeviceQueue(c->dev, family, 0, &c->queue);
	{
		VkCommandPoolCreateInfo ci = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
		VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
		VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
		VkPipelineCacheCreateInfo pci = {VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
		VkDescriptorPoolSize sizes[4] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VKX_MAX_SLOTS},
		                                 {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, VKX_MAX_SLOTS},
		                                 {VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, VKX_MAX_SLOTS},
		                                 {VK_DESCRIPTOR_TYPE_SAMPLER, VKX_MAX_SLOTS}};
		VkDescriptorPoolCreateInfo dpi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
		/* TRANSIENT: the one command buffer is re-recorded for every job
		 * after a pool reset, which is the cheapest reuse path. */
		ci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
		ci.queueFamilyIndex = family;
		if ((r = c->vkCreateCommandPool(c->dev, &ci, NULL, &c->cpool)) != VK_SUCCESS) {
			FAIL(err, "vkCreateCommandPool", r);
			goto fail;
		}
		ai.commandPool = c->cpool;
		ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
		ai.commandBufferCount = 1;
		if ((r = c->vkAllocateCommandBuffers(c->dev, &ai, &c->cmd)) != VK_SUCCESS) {
			FAIL(err, "vkAllocateCommandBuffers", r);
			goto fail;
		}
		if ((r = c->vkCreateFence(c->dev, &fi, NULL, &c->fence)) != VK_SUCCESS) {
			FAIL(err, "vkCreateFence", r);
			goto fail;
		}
		dpi.maxSets = VKX_MAX_SETS;
		dpi.poolSizeCount = 4;
		dpi.pPoolSizes = sizes;
		if ((r = c->vkCreateDescriptorPool(c->dev, &dpi, NULL, &c->dpool)) != VK_SUCCESS) {
			FAIL(err, "vkCreateDescriptorPool", r);
			goto fail;
		}
		if ((r = c->vkCreatePipelineCache(c->dev, &pci, NULL, &c->pcache)) != VK_SUCCESS) {
			FAIL(err, "vkCreatePipelineCache", r);
			goto fail;
		}
	}
	return c;

fail_nodev:
	/* vkDestroyDevice itself may be the missing entry point. */
	{
		PFN_vkDestroyDevice d = (PFN_vkDestroyDevice)gdpa(c->dev, "vkDestroyDevice");
		if (d != NULL)
			d(c->dev, NULL);
		free(c);
		return NULL;
	}
fail:
	vkx_ctx_destroy(c);
	return NULL;
}

void vkx_pipe_destroy(vkx_ctx *c, vkx_pipe *p) {
	if (c == NULL || p == NULL)
		return;
	if (!c->broken) {
		if (p->pipe)
			c->vkDestroyPipeline(c->dev, p->pipe, NULL);
		if (p->layout)
			c->vkDestroyPipelineLayout(c->dev, p->layout, NULL);
		for (uint32_t i = 0; i < p->nsets; i++)
			if (p->sets[i])
				c->vkDestroyDescriptorSetLayout(c->dev, p->sets[i], NULL);
	}
	free(p);
}

static vkx_pipe *pipe_new(VkPipelineBindPoint bind, VkShaderStageFlags stages, vkx_err *err) {
	vkx_pipe *p = calloc(1, sizeof *p);
	if (p == NULL) {
		FAIL(err, "calloc", VK_ERROR_OUT_OF_HOST_MEMORY);
		return NULL;
	}
	p->bind = bind;
	p->stages = stages;
	return p;
}

/* layout_create makes p's descriptor set layouts and pipeline layout, the
 * descriptors and push constants visible to p->stages. Returns 0 on failure
 * (the caller destroys p, which releases what was made). */
static int layout_create(vkx_ctx *c, vkx_pipe *p, const vkx_binding *b, uint32_t nb,
                         uint32_t push_size, vkx_err *err) {
	VkDescriptorSetLayoutBinding lb[VKX_MAX_SLOTS];
	VkResult r;

	if (nb > VKX_MAX_SLOTS) {
		FAIL(err, "too many bindings", VK_ERROR_TOO_MANY_OBJECTS);
		return 0;
	}
	/* Sets 0..max are all declared; a set no binding names gets an empty
	 * layout, which Vulkan requires for gaps. */
	for (uint32_t i = 0; i < nb; i++) {
		if (b[i].set >= VKX_MAX_SETS) {
			FAIL(err, "descriptor set index too large", VK_ERROR_TOO_MANY_OBJECTS);
			return 0;
		}
		if (b[i].set + 1 > p->nsets)
			p->nsets = b[i].set + 1;
	}
	for (uint32_t s = 0; s < p->nsets; s++) {
		VkDescriptorSetLayoutCreateInfo li = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
		uint32_t n = 0;
		for (uint32_t i = 0; i < nb; i++) {
			if (b[i].set != s)
				continue;
			memset(&lb[n], 0, sizeof lb[n]);
			lb[n].binding = b[i].binding;
			lb[n].descriptorType = (VkDescriptorType)b[i].type;
			lb[n].descriptorCount = 1;
			lb[n].stageFlags = p->stages;
			n++;
		}
		li.bindingCount = n;
		li.pBindings = lb;
		if ((r = c->vkCreateDescriptorSetLayout(c->dev, &li, NULL, &p->sets[s])) != VK_SUCCESS) {
			p->sets[s] = VK_NULL_HANDLE;
			FAIL(err, "vkCreateDescriptorSetLayout", r);
			return 0;
		}
	}
	{
		VkPipelineLayoutCreateInfo li = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
		VkPushConstantRange pr = {p->stages, 0, push_size};
		li.setLayoutCount = p->nsets;
		li.pSetLayouts = p->sets;
		if (push_size > 0) {
			li.pushConstantRangeCount = 1;
			li.pPushConstantRanges = &pr;
		}
		p->push_size = push_size;
		if ((r = c->vkCreatePipelineLayout(c->dev, &li, NULL, &p->layout)) != VK_SUCCESS) {
			p->layout = VK_NULL_HANDLE;
			FAIL(err, "vkCreatePipelineLayout", r);
			return 0;
		}
	}
	return 1;
}

static int module_create(vkx_ctx *c, const uint32_t *code, size_t words, VkShaderModule *m,
                         vkx_err *err) {
	VkShaderModuleCreateInfo mi = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
	VkResult r;
	mi.codeSize = words * 4;
	mi.pCode = code;
	if ((r = c->vkCreateShaderModule(c->dev, &mi, NULL, m)) != VK_SUCCESS) {
		*m = VK_NULL_HANDLE;
		FAIL(err, "vkCreateShaderModule", r);
		return 0;
	}
	return 1;
}

/* stage_info fills one shader stage, chaining rs when required_size is set. */
static void stage_info(VkPipelineShaderStageCreateInfo *st,
                       VkPipelineShaderStageRequiredSubgroupSizeCreateInfo *rs,
                       VkShaderStageFlagBits stage, VkShaderModule m, const char *entry,
                       uint32_t flags, uint32_t required_size) {
	memset(st, 0, sizeof *st);
	memset(rs, 0, sizeof *rs);
	st->sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
	st->stage = stage;
	st->module = m;
	st->pName = entry;
	st->flags = flags;
	if (required_size != 0) {
		rs->sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO;
		rs->requiredSubgroupSize = required_size;
		st->pNext = rs;
	}
}

vkx_pipe *vkx_pipe_create(vkx_ctx *c, const uint32_t *spirv, size_t words, const char *entry,
                          const vkx_binding *b, uint32_t nb, uint32_t push_size,
                          uint32_t required_size, uint32_t flags, vkx_err *err) {
	vkx_pipe *p;
	VkResult r;
	VkShaderModule mod;
	VkComputePipelineCreateInfo pi = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
	VkPipelineShaderStageRequiredSubgroupSizeCreateInfo rs;

	p = pipe_new(VK_PIPELINE_BIND_POINT_COMPUTE, VK_SHADER_STAGE_COMPUTE_BIT, err);
	if (p == NULL)
		return NULL;
	if (!layout_create(c, p, b, nb, push_size, err) || !module_create(c, spirv, words, &mod, err))
		goto fail;
	stage_info(&pi.stage, &rs, VK_SHADER_STAGE_COMPUTE_BIT, mod, entry, flags, required_size);
	pi.layout = p->layout;
	r = c->vkCreateComputePipelines(c->dev, c->pcache, 1, &pi, NULL, &p->pipe);
	c->vkDestroyShaderModule(c->dev, mod, NULL);
	if (r != VK_SUCCESS) {
		p->pipe = VK_NULL_HANDLE;
		FAIL(err, "vkCreateComputePipelines", r);
		goto fail;
	}
	return p;
fail:
	vkx_pipe_destroy(c, p);
	return NULL;
}

/* pick_type returns the first memory type allowed by bits that has every
 * flag of one of want[0..n) (earlier entries preferred), or -1. */
static int32_t pick_type(const VkPhysicalDeviceMemoryProperties *m, uint32_t bits,
                         const VkMemoryPropertyFlags *want, int n) {
	for (int w = 0; w < n; w++)
		for (uint32_t i = 0; i < m->memoryTypeCount; i++)
			if ((bits & (1u << i)) && (m->memoryTypes[i].propertyFlags & want[w]) == want[w])
				return (int32_t)i;
	return -1;
}

/* pick_memory prefers cached host memory (fast readback on discrete GPUs),
 * then any host-visible coherent type. */
static int32_t pick_memory(const VkPhysicalDeviceMemoryProperties *m, uint32_t bits) {
	static const VkMemoryPropertyFlags want[2] = {
	    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
	        VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
	    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT};
	return pick_type(m, bits, want, 2);
}

/* slot_reserve makes s hold at least size bytes and returns its mapping. */
static void *slot_reserve(vkx_ctx *c, slot *s, uint64_t size, vkx_err *err) {
	uint64_t cap = 256;
	VkResult r;
	if (s->cap >= size && s->map != NULL)
		return s->map;
	/* Grow to a power of two so a run of slightly different sizes does not
	 * reallocate every time. The previous job has completed (every submit
	 * waits on its fence), so freeing is safe. */
	while (cap < size)
		cap *= 2;
	slot_free(c, s);
	{
		VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
		VkMemoryRequirements req;
		VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
		int32_t type;
		bi.size = cap;
		/* One buffer serves either descriptor kind and the image copy, so
		 * slots never need to be recreated when a job swaps storage for
		 * uniform. */
		bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
		           VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
		bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
		if ((r = c->vkCreateBuffer(c->dev, &bi, NULL, &s->buf)) != VK_SUCCESS) {
			s->buf = VK_NULL_HANDLE;
			FAIL(err, "vkCreateBuffer", r);
			return NULL;
		}
		c->vkGetBufferMemoryRequirements(c->dev, s->buf, &req);
		type = pick_memory(&c->mem, req.memoryTypeBits);
		if (type < 0) {
			FAIL(err, "no host-visible coherent memory type", VK_ERROR_FEATURE_NOT_PRESENT);
			return NULL;
		}
		ai.allocationSize = req.size;
		ai.memoryTypeIndex = (uint32_t)type;
		if ((r = c->vkAllocateMemory(c->dev, &ai, NULL, &s->mem)) != VK_SUCCESS) {
			s->mem = VK_NULL_HANDLE;
			FAIL(err, "vkAllocateMemory", r);
			return NULL;
		}
		if ((r = c->vkBindBufferMemory(c->dev, s->buf, s->mem, 0)) != VK_SUCCESS) {
			FAIL(err, "vkBindBufferMemory", r);
			return NULL;
		}
		if ((r = c->vkMapMemory(c->dev, s->mem, 0, VK_WHOLE_SIZE, 0, &s->map)) != VK_SUCCESS) {
			s->map = NULL;
			FAIL(err, "vkMapMemory", r);
			return NULL;
		}
	}
	s->cap = cap;
	return s->map;
}

void *vkx_slot(vkx_ctx *c, uint32_t idx, uint64_t size, vkx_err *err) {
	if (idx >= VKX_MAX_SLOTS) {
		FAIL(err, "too many buffers", VK_ERROR_TOO_MANY_OBJECTS);
		return NULL;
	}
	return slot_reserve(c, &c->slots[idx], size, err);
}

/* ---- recording and submission shared by dispatches and draws ---- */

/* job_begin checks the context, writes p's descriptor sets from the slots
 * named by b and starts recording the command buffer with p and its sets
 * bound. */
static VkResult job_begin(vkx_ctx *c, vkx_pipe *p, const vkx_binding *b, uint32_t nb,
                          vkx_err *err) {
	VkDescriptorSet sets[VKX_MAX_SETS];
	VkWriteDescriptorSet w[VKX_MAX_SLOTS];
	VkDescriptorBufferInfo bi[VKX_MAX_SLOTS];
	VkDescriptorImageInfo ii[VKX_MAX_SLOTS];
	VkCommandBufferBeginInfo bb = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	VkResult r;

	if (c->broken) {
		FAIL(err, "runner unusable after an earlier timeout or device loss", VK_ERROR_DEVICE_LOST);
		return VK_ERROR_DEVICE_LOST;
	}
	if (nb > VKX_MAX_SLOTS) {
		FAIL(err, "too many bindings", VK_ERROR_TOO_MANY_OBJECTS);
		return VK_ERROR_TOO_MANY_OBJECTS;
	}
	if ((r = c->vkResetDescriptorPool(c->dev, c->dpool, 0)) != VK_SUCCESS) {
		FAIL(err, "vkResetDescriptorPool", r);
		return r;
	}
	if (p->nsets > 0) {
		VkDescriptorSetAllocateInfo ai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
		ai.descriptorPool = c->dpool;
		ai.descriptorSetCount = p->nsets;
		ai.pSetLayouts = p->sets;
		if ((r = c->vkAllocateDescriptorSets(c->dev, &ai, sets)) != VK_SUCCESS) {
			FAIL(err, "vkAllocateDescriptorSets", r);
			return r;
		}
	}
	for (uint32_t i = 0; i < nb; i++) {
		if (b[i].set >= p->nsets) {
			FAIL(err, "binding of a set the pipeline lacks", VK_ERROR_UNKNOWN);
			return VK_ERROR_UNKNOWN;
		}
		memset(&w[i], 0, sizeof w[i]);
		w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
		w[i].dstSet = sets[b[i].set];
		w[i].dstBinding = b[i].binding;
		w[i].descriptorCount = 1;
		w[i].descriptorType = (VkDescriptorType)b[i].type;
		memset(&ii[i], 0, sizeof ii[i]);
		switch (b[i].type) {
		case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
			if (b[i].slot >= VKX_MAX_IMAGES || c->images[b[i].slot].view == VK_NULL_HANDLE) {
				FAIL(err, "binding does not match a prepared image", VK_ERROR_UNKNOWN);
				return VK_ERROR_UNKNOWN;
			}
			ii[i].imageView = c->images[b[i].slot].view;
			ii[i].imageLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
			w[i].pImageInfo = &ii[i];
			break;
		case VK_DESCRIPTOR_TYPE_SAMPLER:
			if (b[i].slot >= VKX_MAX_SAMPLERS || c->samplers[b[i].slot].s == VK_NULL_HANDLE) {
				FAIL(err, "binding does not match a prepared sampler", VK_ERROR_UNKNOWN);
				return VK_ERROR_UNKNOWN;
			}
			ii[i].sampler = c->samplers[b[i].slot].s;
			w[i].pImageInfo = &ii[i];
			break;
		default:
			if (b[i].slot >= VKX_MAX_SLOTS || c->slots[b[i].slot].cap < b[i].size) {
				FAIL(err, "binding does not match a prepared buffer", VK_ERROR_UNKNOWN);
				return VK_ERROR_UNKNOWN;
			}
			bi[i].buffer = c->slots[b[i].slot].buf;
			bi[i].offset = 0;
			bi[i].range = b[i].size;
			w[i].pBufferInfo = &bi[i];
		}
	}
	if (nb > 0)
		c->vkUpdateDescriptorSets(c->dev, nb, w, 0, NULL);

	if ((r = c->vkResetCommandPool(c->dev, c->cpool, 0)) != VK_SUCCESS) {
		FAIL(err, "vkResetCommandPool", r);
		return r;
	}
	bb.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	if ((r = c->vkBeginCommandBuffer(c->cmd, &bb)) != VK_SUCCESS) {
		FAIL(err, "vkBeginCommandBuffer", r);
		return r;
	}
	c->vkCmdBindPipeline(c->cmd, p->bind, p->pipe);
	if (p->nsets > 0)
		c->vkCmdBindDescriptorSets(c->cmd, p->bind, p->layout, 0, p->nsets, sets, 0, NULL);
	return VK_SUCCESS;
}

/* job_end makes the writes of src_stages (src_access) visible to the host
 * read after the fence, ends recording, submits and waits up to timeout_ns.
 * A timeout or a lost device marks the context broken. */
static VkResult job_end(vkx_ctx *c, VkPipelineStageFlags src_stages, VkAccessFlags src_access,
                        uint64_t timeout_ns, vkx_err *err) {
	VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
	VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
	VkResult r;

	mb.srcAccessMask = src_access;
	mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
	c->vkCmdPipelineBarrier(c->cmd, src_stages, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0,
	                        NULL);
	if ((r = c->vkEndCommandBuffer(c->cmd)) != VK_SUCCESS) {
		FAIL(err, "vkEndCommandBuffer", r);
		return r;
	}
	si.commandBufferCount = 1;
	si.pCommandBuffers = &c->cmd;
	if ((r = c->vkResetFences(c->dev, 1, &c->fence)) != VK_SUCCESS) {
		FAIL(err, "vkResetFences", r);
		return r;
	}
	if ((r = c->vkQueueSubmit(c->queue, 1, &si, c->fence)) != VK_SUCCESS) {
		if (r == VK_ERROR_DEVICE_LOST)
			c->broken = 1;
		FAIL(err, "vkQueueSubmit", r);
		return r;
	}
	r = c->vkWaitForFences(c->dev, 1, &c->fence, VK_TRUE, timeout_ns);
	if (r != VK_SUCCESS) {
		if (r == VK_TIMEOUT || r == VK_ERROR_DEVICE_LOST)
			c->broken = 1;
		FAIL(err, "vkWaitForFences", r);
		return r;
	}
	return VK_SUCCESS;
}

VkResult vkx_dispatch(vkx_ctx *c, vkx_pipe *p, const vkx_binding *b, uint32_t nb,
                      const void *push, uint32_t push_size, uint32_t gx, uint32_t gy,
                      uint32_t gz, uint64_t timeout_ns, vkx_err *err) {
	VkResult r;
	if (p->bind != VK_PIPELINE_BIND_POINT_COMPUTE) {
		FAIL(err, "vkx_dispatch needs a compute pipeline", VK_ERROR_UNKNOWN);
		return VK_ERROR_UNKNOWN;
	}
	if ((r = job_begin(c, p, b, nb, err)) != VK_SUCCESS)
		return r;
	if (push_size > 0)
		c->vkCmdPushConstants(c->cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size, push);
	c->vkCmdDispatch(c->cmd, gx, gy, gz);
	return job_end(c, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, timeout_ns,
	               err);
}

/* ---- sampled images and samplers ---- */

static VkFormat image_format(uint32_t format) {
	switch (format) {
	case VKX_FORMAT_R16_SFLOAT:
		return VK_FORMAT_R16_SFLOAT;
	}
	return VK_FORMAT_UNDEFINED;
}

uint32_t vkx_format_features(vkx_ctx *c, uint32_t format) {
	VkFormatProperties fp;
	VkFormat f = image_format(format);
	if (c == NULL || c->format_props == NULL || f == VK_FORMAT_UNDEFINED)
		return 0;
	memset(&fp, 0, sizeof fp);
	c->format_props(c->pd, f, &fp);
	return fp.optimalTilingFeatures;
}

/* image_make creates im as a sampled, transfer-destination image with a view
 * of all its levels. */
static int image_make(vkx_ctx *c, image *im, uint32_t format, uint32_t w, uint32_t h,
                      uint32_t levels, vkx_err *err) {
	static const VkMemoryPropertyFlags want[2] = {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0};
	VkImageCreateInfo ci = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
	VkImageViewCreateInfo vi = {VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
	VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
	VkMemoryRequirements req;
	VkResult r;
	int32_t type;

	ci.imageType = VK_IMAGE_TYPE_2D;
	ci.format = image_format(format);
	ci.extent.width = w;
	ci.extent.height = h;
	ci.extent.depth = 1;
	ci.mipLevels = levels;
	ci.arrayLayers = 1;
	ci.samples = VK_SAMPLE_COUNT_1_BIT;
	ci.tiling = VK_IMAGE_TILING_OPTIMAL;
	ci.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
	ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
	ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	if ((r = c->vkCreateImage(c->dev, &ci, NULL, &im->image)) != VK_SUCCESS) {
		im->image = VK_NULL_HANDLE;
		FAIL(err, "vkCreateImage (sampled image)", r);
		return 0;
	}
	c->vkGetImageMemoryRequirements(c->dev, im->image, &req);
	if ((type = pick_type(&c->mem, req.memoryTypeBits, want, 2)) < 0) {
		FAIL(err, "no memory type for the sampled image", VK_ERROR_FEATURE_NOT_PRESENT);
		return 0;
	}
	ai.allocationSize = req.size;
	ai.memoryTypeIndex = (uint32_t)type;
	if ((r = c->vkAllocateMemory(c->dev, &ai, NULL, &im->mem)) != VK_SUCCESS) {
		im->mem = VK_NULL_HANDLE;
		FAIL(err, "vkAllocateMemory (sampled image)", r);
		return 0;
	}
	if ((r = c->vkBindImageMemory(c->dev, im->image, im->mem, 0)) != VK_SUCCESS) {
		FAIL(err, "vkBindImageMemory (sampled image)", r);
		return 0;
	}
	vi.image = im->image;
	vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
	vi.format = ci.format;
	vi.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
	vi.subresourceRange.levelCount = levels;
	vi.subresourceRange.layerCount = 1;
	if ((r = c->vkCreateImageView(c->dev, &vi, NULL, &im->view)) != VK_SUCCESS) {
		im->view = VK_NULL_HANDLE;
		FAIL(err, "vkCreateImageView (sampled image)", r);
		return 0;
	}
	im->format = format;
	im->width = w;
	im->height = h;
	im->levels = levels;
	return 1;
}

VkResult vkx_image(vkx_ctx *c, uint32_t idx, uint32_t format, uint32_t w, uint32_t h,
                   uint32_t levels, const void *data, const uint64_t *offsets, uint64_t total,
                   vkx_err *err) {
	VkCommandBufferBeginInfo bb = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
	VkImageMemoryBarrier ib = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
	VkBufferImageCopy regions[VKX_MAX_LEVELS];
	image *im;
	void *map;
	VkResult r;

	if (c->broken) {
		FAIL(err, "runner unusable after an earlier timeout or device loss", VK_ERROR_DEVICE_LOST);
		return VK_ERROR_DEVICE_LOST;
	}
	if (idx >= VKX_MAX_IMAGES || levels == 0 || levels > VKX_MAX_LEVELS || w == 0 || h == 0 ||
	    image_format(format) == VK_FORMAT_UNDEFINED) {
		FAIL(err, "sampled image out of the shim's range", VK_ERROR_TOO_MANY_OBJECTS);
		return VK_ERROR_TOO_MANY_OBJECTS;
	}
	im = &c->images[idx];
	if (im->view == VK_NULL_HANDLE || im->format != format || im->width != w || im->height != h ||
	    im->levels != levels) {
		/* Every earlier job waited on its fence: nothing uses the old image. */
		image_free(c, im);
		if (!image_make(c, im, format, w, h, levels, err)) {
			r = err->result;
			image_free(c, im);
			return r;
		}
	}
	if ((map = slot_reserve(c, &c->staging, total, err)) == NULL)
		return err->result;
	memcpy(map, data, total);
	if ((r = c->vkResetCommandPool(c->dev, c->cpool, 0)) != VK_SUCCESS) {
		FAIL(err, "vkResetCommandPool", r);
		return r;
	}
	bb.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	if ((r = c->vkBeginCommandBuffer(c->cmd, &bb)) != VK_SUCCESS) {
		FAIL(err, "vkBeginCommandBuffer", r);
		return r;
	}
	/* The old contents are discarded (UNDEFINED), every level is written by
	 * the copies, then made visible to every later shader read in the
	 * image's sampling layout. */
	ib.srcAccessMask = 0;
	ib.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	ib.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
	ib.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
	ib.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
	ib.image = im->image;
	ib.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
	ib.subresourceRange.levelCount = levels;
	ib.subresourceRange.layerCount = 1;
	c->vkCmdPipelineBarrier(c->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
	                        0, 0, NULL, 0, NULL, 1, &ib);
	memset(regions, 0, sizeof regions);
	for (uint32_t l = 0; l < levels; l++) {
		regions[l].bufferOffset = offsets[l];
		regions[l].imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
		regions[l].imageSubresource.mipLevel = l;
		regions[l].imageSubresource.layerCount = 1;
		regions[l].imageExtent.width = w >> l ? w >> l : 1;
		regions[l].imageExtent.height = h >> l ? h >> l : 1;
		regions[l].imageExtent.depth = 1;
	}
	c->vkCmdCopyBufferToImage(c->cmd, c->staging.buf, im->image,
	                          VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, levels, regions);
	ib.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
	ib.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
	ib.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
	ib.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
	c->vkCmdPipelineBarrier(c->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
	                        VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0, NULL, 1, &ib);
	if ((r = c->vkEndCommandBuffer(c->cmd)) != VK_SUCCESS) {
		FAIL(err, "vkEndCommandBuffer", r);
		return r;
	}
	si.commandBufferCount = 1;
	si.pCommandBuffers = &c->cmd;
	if ((r = c->vkResetFences(c->dev, 1, &c->fence)) != VK_SUCCESS) {
		FAIL(err, "vkResetFences", r);
		return r;
	}
	if ((r = c->vkQueueSubmit(c->queue, 1, &si, c->fence)) != VK_SUCCESS) {
		if (r == VK_ERROR_DEVICE_LOST)
			c->broken = 1;
		FAIL(err, "vkQueueSubmit (image upload)", r);
		return r;
	}
	if ((r = c->vkWaitForFences(c->dev, 1, &c->fence, VK_TRUE, UINT64_MAX)) != VK_SUCCESS) {
		if (r == VK_ERROR_DEVICE_LOST)
			c->broken = 1;
		FAIL(err, "vkWaitForFences (image upload)", r);
		return r;
	}
	return VK_SUCCESS;
}

VkResult vkx_sampler(vkx_ctx *c, uint32_t idx, uint32_t mag, uint32_t min, uint32_t mip,
                     uint32_t address, vkx_err *err) {
	VkSamplerCreateInfo ci = {VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
	sampler *sm;
	VkResult r;

	if (idx >= VKX_MAX_SAMPLERS) {
		FAIL(err, "too many samplers", VK_ERROR_TOO_MANY_OBJECTS);
		return VK_ERROR_TOO_MANY_OBJECTS;
	}
	sm = &c->samplers[idx];
	if (sm->s != VK_NULL_HANDLE && sm->mag == mag && sm->min == min && sm->mip == mip &&
	    sm->address == address)
		return VK_SUCCESS;
	sampler_free(c, sm);
	ci.magFilter = (VkFilter)mag;
	ci.minFilter = (VkFilter)min;
	ci.mipmapMode = (VkSamplerMipmapMode)mip;
	ci.addressModeU = ci.addressModeV = ci.addressModeW = (VkSamplerAddressMode)address;
	ci.minLod = 0.0f;
	ci.maxLod = VK_LOD_CLAMP_NONE;
	ci.unnormalizedCoordinates = VK_FALSE;
	if ((r = c->vkCreateSampler(c->dev, &ci, NULL, &sm->s)) != VK_SUCCESS) {
		sm->s = VK_NULL_HANDLE;
		FAIL(err, "vkCreateSampler", r);
		return r;
	}
	sm->mag = mag;
	sm->min = min;
	sm->mip = mip;
	sm->address = address;
	return VK_SUCCESS;
}

/* ---- draws ---- */

static VkFormat color_format(uint32_t color) {
	switch (color) {
	case VKX_COLOR_RGBA32_UINT:
		return VK_FORMAT_R32G32B32A32_UINT;
	case VKX_COLOR_RGBA32_FLOAT:
		return VK_FORMAT_R32G32B32A32_SFLOAT;
	}
	return VK_FORMAT_UNDEFINED;
}

/* render_pass returns the context's render pass for a colour format: one
 * subpass, the attachment (if any) cleared at the start and left in
 * TRANSFER_SRC_OPTIMAL for the copy that follows. */
static VkRenderPass render_pass(vkx_ctx *c, uint32_t color, vkx_err *err) {
	VkAttachmentDescription a;
	VkAttachmentReference ref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
	VkSubpassDescription sp;
	VkSubpassDependency dep[2];
	VkRenderPassCreateInfo ri = {VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
	VkResult r;
	VkRenderPass rp;

	if (color >= VKX_COLOR_COUNT) {
		FAIL(err, "unknown colour format", VK_ERROR_FORMAT_NOT_SUPPORTED);
		return VK_NULL_HANDLE;
	}
	pthread_mutex_lock(&c->rpass_mu);
	if (c->rpass[color]) {
		pthread_mutex_unlock(&c->rpass_mu);
		return c->rpass[color];
	}
	memset(&a, 0, sizeof a);
	a.format = color_format(color);
	a.samples = VK_SAMPLE_COUNT_1_BIT;
	a.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
	a.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
	a.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
	a.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
	a.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED; /* cleared anyway */
	a.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
	memset(&sp, 0, sizeof sp);
	sp.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
	memset(dep, 0, sizeof dep);
	/* The previous job's copy read the image; the clear must not overtake
	 * it (the fence already orders them on one queue, but the spec asks
	 * for the dependency). */
	dep[0].srcSubpass = VK_SUBPASS_EXTERNAL;
	dep[0].dstSubpass = 0;
	dep[0].srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
	dep[0].dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
	dep[0].dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
	/* The colour writes must be visible to the copy after the pass. */
	dep[1].srcSubpass = 0;
	dep[1].dstSubpass = VK_SUBPASS_EXTERNAL;
	dep[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
	dep[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
	dep[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
	dep[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
	if (color != VKX_COLOR_NONE) {
		sp.colorAttachmentCount = 1;
		sp.pColorAttachments = &ref;
		ri.attachmentCount = 1;
		ri.pAttachments = &a;
		ri.dependencyCount = 2;
		ri.pDependencies = dep;
	}
	ri.subpassCount = 1;
	ri.pSubpasses = &sp;
	if ((r = c->vkCreateRenderPass(c->dev, &ri, NULL, &c->rpass[color])) != VK_SUCCESS) {
		c->rpass[color] = VK_NULL_HANDLE;
		FAIL(err, "vkCreateRenderPass", r);
	}
	rp = c->rpass[color];
	pthread_mutex_unlock(&c->rpass_mu);
	return rp;
}

/* target_get makes the context's colour image and framebuffer match
 * (color, w, h), keeping them when they already do. */
static int target_get(vkx_ctx *c, uint32_t color, uint32_t w, uint32_t h, vkx_err *err) {
	static const VkMemoryPropertyFlags want[2] = {VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0};
	target *t = &c->tgt;
	VkRenderPass rp;
	VkResult r;

	if (t->fb && t->color == color && t->width == w && t->height == h)
		return 1;
	if ((rp = render_pass(c, color, err)) == VK_NULL_HANDLE)
		return 0;
	/* The previous job waited on its fence: nothing uses the old target. */
	target_free(c);
	if (color != VKX_COLOR_NONE) {
		VkImageCreateInfo ii = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
		VkImageViewCreateInfo vi = {VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
		VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
		VkMemoryRequirements req;
		int32_t type;
		ii.imageType = VK_IMAGE_TYPE_2D;
		ii.format = color_format(color);
		ii.extent.width = w;
		ii.extent.height = h;
		ii.extent.depth = 1;
		ii.mipLevels = 1;
		ii.arrayLayers = 1;
		ii.samples = VK_SAMPLE_COUNT_1_BIT;
		ii.tiling = VK_IMAGE_TILING_OPTIMAL;
		ii.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
		ii.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
		ii.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
		if ((r = c->vkCreateImage(c->dev, &ii, NULL, &t->image)) != VK_SUCCESS) {
			t->image = VK_NULL_HANDLE;
			FAIL(err, "vkCreateImage", r);
			goto fail;
		}
		c->vkGetImageMemoryRequirements(c->dev, t->image, &req);
		if ((type = pick_type(&c->mem, req.memoryTypeBits, want, 2)) < 0) {
			FAIL(err, "no memory type for the colour image", VK_ERROR_FEATURE_NOT_PRESENT);
			goto fail;
		}
		ai.allocationSize = req.size;
		ai.memoryTypeIndex = (uint32_t)type;
		if ((r = c->vkAllocateMemory(c->dev, &ai, NULL, &t->mem)) != VK_SUCCESS) {
			t->mem = VK_NULL_HANDLE;
			FAIL(err, "vkAllocateMemory (colour image)", r);
			goto fail;
		}
		if ((r = c->vkBindImageMemory(c->dev, t->image, t->mem, 0)) != VK_SUCCESS) {
			FAIL(err, "vkBindImageMemory", r);
			goto fail;
		}
		vi.image = t->image;
		vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
		vi.format = ii.format;
		vi.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
		vi.subresourceRange.levelCount = 1;
		vi.subresourceRange.layerCount = 1;
		if ((r = c->vkCreateImageView(c->dev, &vi, NULL, &t->view)) != VK_SUCCESS) {
			t->view = VK_NULL_HANDLE;
			FAIL(err, "vkCreateImageView", r);
			goto fail;
		}
	}
	{
		VkFramebufferCreateInfo fi = {VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
		fi.renderPass = rp;
		fi.attachmentCount = color != VKX_COLOR_NONE ? 1 : 0;
		fi.pAttachments = &t->view;
		fi.width = w;
		fi.height = h;
		fi.layers = 1;
		if ((r = c->vkCreateFramebuffer(c->dev, &fi, NULL, &t->fb)) != VK_SUCCESS) {
			t->fb = VK_NULL_HANDLE;
			FAIL(err, "vkCreateFramebuffer", r);
			goto fail;
		}
	}
	t->color = color;
	t->width = w;
	t->height = h;
	return 1;
fail:
	target_free(c);
	return 0;
}

vkx_pipe *vkx_gfx_pipe_create(vkx_ctx *c, const vkx_gfx_desc *d, const vkx_binding *b, uint32_t nb,
                              vkx_err *err) {
	vkx_pipe *p;
	VkRenderPass rp;
	VkResult r;
	VkShaderModule mods[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
	VkPipelineShaderStageCreateInfo st[2];
	VkPipelineShaderStageRequiredSubgroupSizeCreateInfo rs[2];
	VkPipelineVertexInputStateCreateInfo vin = {
	    VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
	VkPipelineInputAssemblyStateCreateInfo ia = {
	    VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
	/* A negative height (Vulkan 1.1 core, VK_KHR_maintenance1) flips y: clip space
	   then points up as in D3D, which HLSL is written for, and in WebGPU, so one
	   vertex shader draws the same picture through both APIs and their pixel
	   outputs can be compared pixel by pixel (engines flip the same way). */
	VkViewport vp = {0.0f, (float)d->height, (float)d->width, -(float)d->height, 0.0f, 1.0f};
	VkRect2D scissor = {{0, 0}, {d->width, d->height}};
	VkPipelineViewportStateCreateInfo vps = {VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
	VkPipelineRasterizationStateCreateInfo ras = {
	    VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
	VkPipelineMultisampleStateCreateInfo ms = {
	    VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
	VkPipelineColorBlendAttachmentState cba;
	VkPipelineColorBlendStateCreateInfo cb = {
	    VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
	VkGraphicsPipelineCreateInfo gi = {VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
	uint32_t nst = 1;

	if (!c->graphics) {
		FAIL(err, "the device has no queue family with graphics and compute",
		     VK_ERROR_FEATURE_NOT_PRESENT);
		return NULL;
	}
	if (d->width == 0 || d->height == 0) {
		FAIL(err, "empty framebuffer", VK_ERROR_INITIALIZATION_FAILED);
		return NULL;
	}
	if ((rp = render_pass(c, d->color, err)) == VK_NULL_HANDLE)
		return NULL;
	p = pipe_new(VK_PIPELINE_BIND_POINT_GRAPHICS,
	             VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, err);
	if (p == NULL)
		return NULL;
	p->color = d->color;
	p->width = d->width;
	p->height = d->height;
	if (!layout_create(c, p, b, nb, 0, err) || !module_create(c, d->vs, d->vs_words, &mods[0], err))
		goto fail;
	stage_info(&st[0], &rs[0], VK_SHADER_STAGE_VERTEX_BIT, mods[0], d->vs_entry, 0, d->vs_size);
	if (d->fs != NULL) {
		if (!module_create(c, d->fs, d->fs_words, &mods[1], err))
			goto fail;
		stage_info(&st[1], &rs[1], VK_SHADER_STAGE_FRAGMENT_BIT, mods[1], d->fs_entry, 0,
		           d->fs_size);
		nst = 2;
	}
	/* No vertex buffers: the vertex shader derives everything from
	 * SV_VertexID / SV_InstanceID. */
	ia.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
	vps.viewportCount = 1;
	vps.pViewports = &vp;
	vps.scissorCount = 1;
	vps.pScissors = &scissor;
	/* Without a fragment stage nothing rasterizes: vertex-only jobs. */
	ras.rasterizerDiscardEnable = d->fs == NULL ? VK_TRUE : VK_FALSE;
	ras.polygonMode = VK_POLYGON_MODE_FILL;
	ras.cullMode = VK_CULL_MODE_NONE;
	ras.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
	ras.lineWidth = 1.0f;
	ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
	memset(&cba, 0, sizeof cba);
	cba.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
	                     VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
	cb.attachmentCount = d->color != VKX_COLOR_NONE ? 1 : 0;
	cb.pAttachments = &cba;
	gi.stageCount = nst;
	gi.pStages = st;
	gi.pVertexInputState = &vin;
	gi.pInputAssemblyState = &ia;
	gi.pViewportState = &vps;
	gi.pRasterizationState = &ras;
	gi.pMultisampleState = &ms;
	gi.pColorBlendState = &cb;
	gi.layout = p->layout;
	gi.renderPass = rp;
	gi.subpass = 0;
	r = c->vkCreateGraphicsPipelines(c->dev, c->pcache, 1, &gi, NULL, &p->pipe);
	if (r != VK_SUCCESS) {
		p->pipe = VK_NULL_HANDLE;
		FAIL(err, "vkCreateGraphicsPipelines", r);
		goto fail;
	}
	for (int i = 0; i < 2; i++)
		if (mods[i])
			c->vkDestroyShaderModule(c->dev, mods[i], NULL);
	return p;
fail:
	for (int i = 0; i < 2; i++)
		if (mods[i])
			c->vkDestroyShaderModule(c->dev, mods[i], NULL);
	vkx_pipe_destroy(c, p);
	return NULL;
}

VkResult vkx_draw(vkx_ctx *c, vkx_pipe *p, const vkx_binding *b, uint32_t nb,
                  uint32_t vertex_count, uint32_t draws, uint64_t timeout_ns, void **color,
                  vkx_err *err) {
	VkRenderPassBeginInfo rb = {VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
	VkClearValue clear;
	uint64_t bytes = (uint64_t)p->width * p->height * 16;
	VkResult r;

	*color = NULL;
	if (p->bind != VK_PIPELINE_BIND_POINT_GRAPHICS) {
		FAIL(err, "vkx_draw needs a graphics pipeline", VK_ERROR_UNKNOWN);
		return VK_ERROR_UNKNOWN;
	}
	if (c->broken) {
		FAIL(err, "runner unusable after an earlier timeout or device loss", VK_ERROR_DEVICE_LOST);
		return VK_ERROR_DEVICE_LOST;
	}
	if (!target_get(c, p->color, p->width, p->height, err))
		return err->result;
	if (p->color != VKX_COLOR_NONE && slot_reserve(c, &c->readback, bytes, err) == NULL)
		return err->result;
	if ((r = job_begin(c, p, b, nb, err)) != VK_SUCCESS)
		return r;
	/* Zero is 0u in every word for the uint format and 0.0f for the float
	 * one. */
	memset(&clear, 0, sizeof clear);
	rb.renderPass = c->rpass[p->color];
	rb.framebuffer = c->tgt.fb;
	rb.renderArea.extent.width = p->width;
	rb.renderArea.extent.height = p->height;
	rb.clearValueCount = p->color != VKX_COLOR_NONE ? 1 : 0;
	rb.pClearValues = &clear;
	c->vkCmdBeginRenderPass(c->cmd, &rb, VK_SUBPASS_CONTENTS_INLINE);
	for (uint32_t i = 0; i < draws; i++)
		c->vkCmdDraw(c->cmd, vertex_count, 1, 0, i);
	c->vkCmdEndRenderPass(c->cmd);
	if (p->color != VKX_COLOR_NONE) {
		/* bufferRowLength 0: rows tightly packed, row y at y*width*16. */
		VkBufferImageCopy region;
		memset(&region, 0, sizeof region);
		region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
		region.imageSubresource.layerCount = 1;
		region.imageExtent.width = p->width;
		region.imageExtent.height = p->height;
		region.imageExtent.depth = 1;
		c->vkCmdCopyImageToBuffer(c->cmd, c->tgt.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		                          c->readback.buf, 1, &region);
	}
	r = job_end(c,
	            VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT |
	                VK_PIPELINE_STAGE_TRANSFER_BIT,
	            VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, timeout_ns, err);
	if (r == VK_SUCCESS && p->color != VKX_COLOR_NONE)
		*color = c->readback.map;
	return r;
}

/* Task and mesh pipelines and their draws (VK_EXT_mesh_shader): kept in a file
 * of their own, included here because they build on this file's private
 * context, pipeline, layout and submission helpers. */
#include "mesh_impl.h"
