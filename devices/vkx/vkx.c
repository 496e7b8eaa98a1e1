/* vkx.c: capability query and compute runner, see vkx.h. */
#include "vkx.h"

#include <dlfcn.h>
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
	/* which structs are on the chain */
	int has_v12, has_v13, has_s16, has_s8, has_f16i8, has_xtypes, has_vmm, has_ssc, has_ucf,
	    has_rot, has_quad, has_maxrc;
} featchain;

#define LINK(tail, s, st)             \
	do {                              \
		(s).sType = (st);             \
		*(tail) = &(s);               \
		(tail) = &(s).pNext;          \
	} while (0)

/* quad control is only usable together with maximal reconvergence (its
 * extension dependency), so both are treated as one. */
static int want_quad(const extlist *e) {
	return ext_has(e, "VK_KHR_shader_quad_control") &&
	       ext_has(e, "VK_KHR_shader_maximal_reconvergence");
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
	if (want_quad(e)) {
		LINK(tail, c->maxrc, VKX_STYPE_MAXIMAL_RECONVERGENCE);
		LINK(tail, c->quad, VKX_STYPE_QUAD_CONTROL);
		c->has_maxrc = c->has_quad = 1;
	}
}

static PFN_vkGetPhysicalDeviceFeatures2 features2_fn(VkInstance inst, uint32_t instance_api) {
	if (instance_api >= VK_API_VERSION_1_1)
		return IFN(inst, vkGetPhysicalDeviceFeatures2);
	return (PFN_vkGetPhysicalDeviceFeatures2)gipa(inst, "vkGetPhysicalDeviceFeatures2KHR");
}

/* ---- query ---- */

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
	free(e.p);
	return VK_SUCCESS;
}

/* ---- compute runner ---- */

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
	X(vkBindBufferMemory) X(vkMapMemory)

typedef struct slot {
	VkBuffer buf;
	VkDeviceMemory mem;
	uint64_t cap;
	void *map;
} slot;

struct vkx_ctx {
	VkDevice dev;
	VkQueue queue;
	VkCommandPool cpool;
	VkCommandBuffer cmd;
	VkFence fence;
	VkDescriptorPool dpool;
	VkPipelineCache pcache;
	VkPhysicalDeviceMemoryProperties mem;
	slot slots[VKX_MAX_SLOTS];
	int broken; /* a fence wait timed out: the device may still be running */
#define X(name) PFN_##name name;
	VKX_DEVICE_FNS(X)
#undef X
};

struct vkx_pipe {
	VkPipeline pipe;
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
    NULL,
};

void vkx_ctx_destroy(vkx_ctx *c) {
	if (c == NULL)
		return;
	if (c->dev != VK_NULL_HANDLE) {
		/* After a timed-out dispatch waiting could hang forever; leak
		 * instead of destroying objects the device may still use. */
		if (c->broken) {
			free(c);
			return;
		}
		c->vkDeviceWaitIdle(c->dev);
		for (int i = 0; i < VKX_MAX_SLOTS; i++) {
			if (c->slots[i].buf)
				c->vkDestroyBuffer(c->dev, c->slots[i].buf, NULL);
			if (c->slots[i].mem)
				c->vkFreeMemory(c->dev, c->slots[i].mem, NULL);
		}
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
	for (uint32_t i = 0; i < nqf; i++) {
		if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
			family = i;
			break;
		}
	}
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
	if (want_quad(&e)) {
		names[nnames++] = "VK_KHR_shader_maximal_reconvergence";
		names[nnames++] = "VK_KHR_shader_quad_control";
	}
	/* Query into the chain and hand the same chain to vkCreateDevice:
	 * everything reported is enabled. */
	chain_build(&fc, api, &e);
	free(e.p);
	if (feats2 != NULL)
		feats2(pd, &fc.f2);
	/* Capture/replay and multi-device addresses cost speed and are never
	 * used by a test kernel. */
	fc.v12.bufferDeviceAddressCaptureReplay = VK_FALSE;
	fc.v12.bufferDeviceAddressMultiDevice = VK_FALSE;

	c = calloc(1, sizeof *c);
	if (c == NULL) {
		FAIL(err, "calloc", VK_ERROR_OUT_OF_HOST_MEMORY);
		return NULL;
	}
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
	memp(pd, &c->mem);
	c->vkGetDeviceQueue(c->dev, family, 0, &c->queue);
	{
		VkCommandPoolCreateInfo ci = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
		VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
		VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
		VkPipelineCacheCreateInfo pci = {VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
		VkDescriptorPoolSize sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VKX_MAX_SLOTS},
		                                 {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, VKX_MAX_SLOTS}};
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
		dpi.poolSizeCount = 2;
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

vkx_pipe *vkx_pipe_create(vkx_ctx *c, const uint32_t *spirv, size_t words, const char *entry,
                          const vkx_binding *b, uint32_t nb, uint32_t push_size,
                          uint32_t required_size, uint32_t flags, vkx_err *err) {
	vkx_pipe *p;
	VkResult r;
	VkShaderModule mod = VK_NULL_HANDLE;
	VkDescriptorSetLayoutBinding lb[VKX_MAX_SLOTS];

	if (nb > VKX_MAX_SLOTS) {
		FAIL(err, "too many bindings", VK_ERROR_TOO_MANY_OBJECTS);
		return NULL;
	}
	p = calloc(1, sizeof *p);
	if (p == NULL) {
		FAIL(err, "calloc", VK_ERROR_OUT_OF_HOST_MEMORY);
		return NULL;
	}
	/* Sets 0..max are all declared; a set no binding names gets an empty
	 * layout, which Vulkan requires for gaps. */
	for (uint32_t i = 0; i < nb; i++) {
		if (b[i].set >= VKX_MAX_SETS) {
			FAIL(err, "descriptor set index too large", VK_ERROR_TOO_MANY_OBJECTS);
			goto fail;
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
			lb[n].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
			n++;
		}
		li.bindingCount = n;
		li.pBindings = lb;
		if ((r = c->vkCreateDescriptorSetLayout(c->dev, &li, NULL, &p->sets[s])) != VK_SUCCESS) {
			FAIL(err, "vkCreateDescriptorSetLayout", r);
			goto fail;
		}
	}
	{
		VkPipelineLayoutCreateInfo li = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
		VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size};
		li.setLayoutCount = p->nsets;
		li.pSetLayouts = p->sets;
		if (push_size > 0) {
			li.pushConstantRangeCount = 1;
			li.pPushConstantRanges = &pr;
		}
		p->push_size = push_size;
		if ((r = c->vkCreatePipelineLayout(c->dev, &li, NULL, &p->layout)) != VK_SUCCESS) {
			FAIL(err, "vkCreatePipelineLayout", r);
			goto fail;
		}
	}
	{
		VkShaderModuleCreateInfo mi = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
		VkComputePipelineCreateInfo pi = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
		VkPipelineShaderStageRequiredSubgroupSizeCreateInfo rs = {
		    VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
		mi.codeSize = words * 4;
		mi.pCode = spirv;
		if ((r = c->vkCreateShaderModule(c->dev, &mi, NULL, &mod)) != VK_SUCCESS) {
			FAIL(err, "vkCreateShaderModule", r);
			goto fail;
		}
		pi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
		pi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
		pi.stage.module = mod;
		pi.stage.pName = entry;
		pi.stage.flags = flags;
		if (required_size != 0) {
			rs.requiredSubgroupSize = required_size;
			pi.stage.pNext = &rs;
		}
		pi.layout = p->layout;
		r = c->vkCreateComputePipelines(c->dev, c->pcache, 1, &pi, NULL, &p->pipe);
		c->vkDestroyShaderModule(c->dev, mod, NULL);
		if (r != VK_SUCCESS) {
			p->pipe = VK_NULL_HANDLE;
			FAIL(err, "vkCreateComputePipelines", r);
			goto fail;
		}
	}
	return p;
fail:
	vkx_pipe_destroy(c, p);
	return NULL;
}

/* pick_memory prefers cached host memory (fast readback on discrete GPUs),
 * then any host-visible coherent type. */
static int32_t pick_memory(const VkPhysicalDeviceMemoryProperties *m, uint32_t bits) {
	const VkMemoryPropertyFlags want[2] = {
	    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
	        VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
	    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT};
	for (int w = 0; w < 2; w++)
		for (uint32_t i = 0; i < m->memoryTypeCount; i++)
			if ((bits & (1u << i)) && (m->memoryTypes[i].propertyFlags & want[w]) == want[w])
				return (int32_t)i;
	return -1;
}

void *vkx_slot(vkx_ctx *c, uint32_t idx, uint64_t size, vkx_err *err) {
	slot *s;
	uint64_t cap = 256;
	VkResult r;
	if (idx >= VKX_MAX_SLOTS) {
		FAIL(err, "too many buffers", VK_ERROR_TOO_MANY_OBJECTS);
		return NULL;
	}
	s = &c->slots[idx];
	if (s->cap >= size && s->map != NULL)
		return s->map;
	/* Grow to a power of two so a run of slightly different sizes does not
	 * reallocate every time. The previous dispatch has completed (every
	 * dispatch waits on its fence), so freeing is safe. */
	while (cap < size)
		cap *= 2;
	if (s->buf)
		c->vkDestroyBuffer(c->dev, s->buf, NULL);
	if (s->mem)
		c->vkFreeMemory(c->dev, s->mem, NULL);
	memset(s, 0, sizeof *s);
	{
		VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
		VkMemoryRequirements req;
		VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
		int32_t type;
		bi.size = cap;
		/* One buffer serves either descriptor kind, so slots never need to
		 * be recreated when a job swaps storage for uniform. */
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

VkResult vkx_dispatch(vkx_ctx *c, vkx_pipe *p, const vkx_binding *b, uint32_t nb,
                      const void *push, uint32_t push_size, uint32_t gx, uint32_t gy,
                      uint32_t gz, uint64_t timeout_ns, vkx_err *err) {
	VkDescriptorSet sets[VKX_MAX_SETS];
	VkWriteDescriptorSet w[VKX_MAX_SLOTS];
	VkDescriptorBufferInfo bi[VKX_MAX_SLOTS];
	VkResult r;

	if (c->broken) {
		FAIL(err, "runner unusable after an earlier timeout", VK_ERROR_DEVICE_LOST);
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
		if (b[i].slot >= VKX_MAX_SLOTS || c->slots[b[i].slot].cap < b[i].size ||
		    b[i].set >= p->nsets) {
			FAIL(err, "binding does not match a prepared buffer", VK_ERROR_UNKNOWN);
			return VK_ERROR_UNKNOWN;
		}
		bi[i].buffer = c->slots[b[i].slot].buf;
		bi[i].offset = 0;
		bi[i].range = b[i].size;
		memset(&w[i], 0, sizeof w[i]);
		w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
		w[i].dstSet = sets[b[i].set];
		w[i].dstBinding = b[i].binding;
		w[i].descriptorCount = 1;
		w[i].descriptorType = (VkDescriptorType)b[i].type;
		w[i].pBufferInfo = &bi[i];
	}
	if (nb > 0)
		c->vkUpdateDescriptorSets(c->dev, nb, w, 0, NULL);

	if ((r = c->vkResetCommandPool(c->dev, c->cpool, 0)) != VK_SUCCESS) {
		FAIL(err, "vkResetCommandPool", r);
		return r;
	}
	{
		VkCommandBufferBeginInfo bb = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
		VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
		bb.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
		if ((r = c->vkBeginCommandBuffer(c->cmd, &bb)) != VK_SUCCESS) {
			FAIL(err, "vkBeginCommandBuffer", r);
			return r;
		}
		c->vkCmdBindPipeline(c->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipe);
		if (p->nsets > 0)
			c->vkCmdBindDescriptorSets(c->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->layout, 0,
			                           p->nsets, sets, 0, NULL);
		if (push_size > 0)
			c->vkCmdPushConstants(c->cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
			                      push_size, push);
		c->vkCmdDispatch(c->cmd, gx, gy, gz);
		/* Shader writes must be visible to the host read after the fence. */
		mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
		mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
		c->vkCmdPipelineBarrier(c->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		                        VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
		if ((r = c->vkEndCommandBuffer(c->cmd)) != VK_SUCCESS) {
			FAIL(err, "vkEndCommandBuffer", r);
			return r;
		}
	}
	{
		VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
		si.commandBufferCount = 1;
		si.pCommandBuffers = &c->cmd;
		if ((r = c->vkResetFences(c->dev, 1, &c->fence)) != VK_SUCCESS) {
			FAIL(err, "vkResetFences", r);
			return r;
		}
		if ((r = c->vkQueueSubmit(c->queue, 1, &si, c->fence)) != VK_SUCCESS) {
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
	}
	return VK_SUCCESS;
}
