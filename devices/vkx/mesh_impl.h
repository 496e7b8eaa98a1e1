/* mesh_impl.h: task and mesh pipelines and their draws (VK_EXT_mesh_shader).
 *
 * Included once, at the end of vkx.c, and nowhere else: it uses that file's
 * private context and pipeline structs and its layout, module, render-pass
 * and submission helpers, which stay static there. It is a header only so
 * that cgo does not compile it a second time as a unit of its own. */

uint32_t vkx_ctx_mesh(const vkx_ctx *c) { return c != NULL && c->vkCmdDrawMeshTasksEXT != NULL; }

/* A mesh pipeline's framebuffer: rasterizer discard draws nothing, but a
 * render pass still needs one; no attachment, one pixel. */
enum { VKX_MESH_FB = 1 };

vkx_pipe *vkx_mesh_pipe_create(vkx_ctx *c, const vkx_mesh_desc *d, const vkx_binding *b,
                               uint32_t nb, vkx_err *err) {
	vkx_pipe *p;
	VkRenderPass rp;
	VkResult r;
	VkShaderModule mods[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
	VkPipelineShaderStageCreateInfo st[2];
	VkPipelineShaderStageRequiredSubgroupSizeCreateInfo rs[2];
	VkViewport vp = {0.0f, 0.0f, (float)VKX_MESH_FB, (float)VKX_MESH_FB, 0.0f, 1.0f};
	VkRect2D scissor = {{0, 0}, {VKX_MESH_FB, VKX_MESH_FB}};
	VkPipelineViewportStateCreateInfo vps = {VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
	VkPipelineRasterizationStateCreateInfo ras = {
	    VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
	VkPipelineMultisampleStateCreateInfo ms = {
	    VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
	VkPipelineColorBlendStateCreateInfo cb = {
	    VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
	VkGraphicsPipelineCreateInfo gi = {VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
	uint32_t nst = 0;

	if (!vkx_ctx_mesh(c)) {
		FAIL(err, "VK_EXT_mesh_shader is not enabled on this device", VK_ERROR_FEATURE_NOT_PRESENT);
		return NULL;
	}
	if (!c->graphics) {
		FAIL(err, "the device has no queue family with graphics and compute",
		     VK_ERROR_FEATURE_NOT_PRESENT);
		return NULL;
	}
	if (d->ms == NULL || d->ms_words == 0) {
		FAIL(err, "a mesh pipeline needs a mesh shader", VK_ERROR_INITIALIZATION_FAILED);
		return NULL;
	}
	if ((rp = render_pass(c, VKX_COLOR_NONE, err)) == VK_NULL_HANDLE)
		return NULL;
	/* The task bit only with a task stage: a device may have meshShader
	 * without taskShader, and then no layout or barrier may name the stage. */
	p = pipe_new(VK_PIPELINE_BIND_POINT_GRAPHICS,
	             VK_SHADER_STAGE_MESH_BIT_EXT | (d->ts != NULL ? VK_SHADER_STAGE_TASK_BIT_EXT : 0), err);
	if (p == NULL)
		return NULL;
	p->color = VKX_COLOR_NONE;
	p->width = VKX_MESH_FB;
	p->height = VKX_MESH_FB;
	if (!layout_create(c, p, b, nb, 0, err))
		goto fail;
	if (d->ts != NULL) {
		if (!module_create(c, d->ts, d->ts_words, &mods[0], err))
			goto fail;
		stage_info(&st[nst], &rs[nst], VK_SHADER_STAGE_TASK_BIT_EXT, mods[0], d->ts_entry, 0,
		           d->task_size);
		nst++;
	}
	if (!module_create(c, d->ms, d->ms_words, &mods[1], err))
		goto fail;
	stage_info(&st[nst], &rs[nst], VK_SHADER_STAGE_MESH_BIT_EXT, mods[1], d->ms_entry, 0, d->mesh_size);
	nst++;
	/* A mesh pipeline has no vertex input or input assembly state (both
	 * ignored: VkGraphicsPipelineCreateInfo, "pVertexInputState ... ignored
	 * if the pipeline includes a mesh shader stage"). The kernels emit no
	 * primitive; discard keeps the rasterizer out even if one did. */
	vps.viewportCount = 1;
	vps.pViewports = &vp;
	vps.scissorCount = 1;
	vps.pScissors = &scissor;
	ras.rasterizerDiscardEnable = VK_TRUE;
	ras.polygonMode = VK_POLYGON_MODE_FILL;
	ras.cullMode = VK_CULL_MODE_NONE;
	ras.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
	ras.lineWidth = 1.0f;
	ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
	gi.stageCount = nst;
	gi.pStages = st;
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
		FAIL(err, "vkCreateGraphicsPipelines (mesh)", r);
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

VkResult vkx_mesh_draw(vkx_ctx *c, vkx_pipe *p, const vkx_binding *b, uint32_t nb, uint32_t gx,
                       uint32_t gy, uint32_t gz, uint64_t timeout_ns, vkx_err *err) {
	VkRenderPassBeginInfo rb = {VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
	VkResult r;

	if (p->bind != VK_PIPELINE_BIND_POINT_GRAPHICS ||
	    (p->stages & VK_SHADER_STAGE_MESH_BIT_EXT) == 0) {
		FAIL(err, "vkx_mesh_draw needs a mesh pipeline", VK_ERROR_UNKNOWN);
		return VK_ERROR_UNKNOWN;
	}
	if (c->broken) {
		FAIL(err, "runner unusable after an earlier timeout or device loss", VK_ERROR_DEVICE_LOST);
		return VK_ERROR_DEVICE_LOST;
	}
	if (!target_get(c, VKX_COLOR_NONE, VKX_MESH_FB, VKX_MESH_FB, err))
		return err->result;
	if ((r = job_begin(c, p, b, nb, err)) != VK_SUCCESS)
		return r;
	rb.renderPass = c->rpass[VKX_COLOR_NONE];
	rb.framebuffer = c->tgt.fb;
	rb.renderArea.extent.width = VKX_MESH_FB;
	rb.renderArea.extent.height = VKX_MESH_FB;
	c->vkCmdBeginRenderPass(c->cmd, &rb, VK_SUBPASS_CONTENTS_INLINE);
	c->vkCmdDrawMeshTasksEXT(c->cmd, gx, gy, gz);
	c->vkCmdEndRenderPass(c->cmd);
	return job_end(c,
	               VK_PIPELINE_STAGE_MESH_SHADER_BIT_EXT |
	                   ((p->stages & VK_SHADER_STAGE_TASK_BIT_EXT) ? VK_PIPELINE_STAGE_TASK_SHADER_BIT_EXT : 0),
	               VK_ACCESS_SHADER_WRITE_BIT, timeout_ns, err);
}
