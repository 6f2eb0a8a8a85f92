// Images for the next task: pasted or dropped on the task box, shown as removable thumbnails,
// and handed to `agent.submit({ text, images })` with the next send. The agent checks them (type
// from the bytes, the provider's size limit) and says what is wrong before any request.

const $ = (id) => document.getElementById(id);
let images = []; // { file, url } in the order attached

function render() {
  const list = $("attachments");
  list.hidden = images.length === 0;
  list.replaceChildren(
    ...images.map((image, i) => {
      const chip = document.createElement("li");
      chip.className = "attachment";
      chip.title = image.file.name;
      const thumb = document.createElement("img");
      thumb.src = image.url;
      thumb.alt = image.file.name;
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "ghost small";
      remove.textContent = "✕";
      remove.setAttribute("aria-label", `Remove ${image.file.name}`);
      remove.addEventListener("click", () => {
        URL.revokeObjectURL(image.url);
        images.splice(i, 1);
        render();
      });
      chip.append(thumb, remove);
      return chip;
    }),
  );
}

function attach(files) {
  const added = [...files].filter((file) => file.type.startsWith("image/"));
  for (const file of added) images.push({ file, url: URL.createObjectURL(file) });
  if (added.length) render();
  return added.length > 0;
}

/** Takes the attached images (as Files) for a send, and clears the box. */
export function takeImages() {
  const files = images.map((image) => image.file);
  for (const image of images) URL.revokeObjectURL(image.url);
  images = [];
  render();
  return files;
}

export function initAttachments() {
  const box = $("composer");
  $("prompt").addEventListener("paste", (e) => {
    if (attach(e.clipboardData?.files ?? [])) e.preventDefault();
  });
  box.addEventListener("dragover", (e) => {
    if ([...(e.dataTransfer?.items ?? [])].some((item) => item.kind === "file")) e.preventDefault();
  });
  box.addEventListener("drop", (e) => {
    if (attach(e.dataTransfer?.files ?? [])) e.preventDefault();
  });
}
