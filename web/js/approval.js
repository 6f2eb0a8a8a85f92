// The approval dialog: when the agent's approval mode asks about a call, the person sees the tool,
// why it asks and the arguments, and answers Allow, Always (calls like it, for the rest of the
// session) or Deny, with a reason the model reads.

const $ = (id) => document.getElementById(id);

/** `onApproval` for the Agent: resolves with the person's answer. */
export function askApproval(request) {
  const dialog = $("approval-dialog");
  $("approval-tool").textContent = request.tool_name;
  $("approval-reason").textContent = request.reason;
  $("approval-arguments").textContent = JSON.stringify(request.arguments, null, 2);
  $("approval-always").textContent = `Always (${request.always})`;
  $("approval-deny-reason").value = "";
  return new Promise((resolve) => {
    const answer = (decision) => () => {
      dialog.close();
      for (const [id, handler] of handlers) $(id).removeEventListener("click", handler);
      dialog.removeEventListener("cancel", cancel);
      resolve(decision === "deny" ? { decision, reason: $("approval-deny-reason").value.trim() } : decision);
    };
    const handlers = [["approval-allow", answer("allow")], ["approval-always", answer("always")], ["approval-deny", answer("deny")]];
    for (const [id, handler] of handlers) $(id).addEventListener("click", handler);
    // Escape denies, as closing the question without an answer should.
    const cancel = answer("deny");
    dialog.addEventListener("cancel", cancel);
    dialog.showModal();
  });
}
