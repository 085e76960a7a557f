import type { Browser } from "playwright-core";

// Small media made here, never fetched: a PDF written object by object, a WAV of silence,
// and a WebM that Chromium's own MediaRecorder encodes from a canvas.

/** A one-page PDF showing `text` (ASCII, no parentheses), with a correct cross-reference. */
export function pdf(text: string): Uint8Array {
  const content = `BT /F1 18 Tf 20 40 Td (${text}) Tj ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 240 100] /Contents 4 0 R " +
      "/Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let body = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, "0")} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(body);
}

/** `seconds` of 16-bit mono PCM silence at `rate` Hz, as a RIFF WAVE file. */
export function wav(seconds: number, rate = 8000): Uint8Array {
  const dataBytes = Math.round(seconds * rate) * 2;
  const file = Buffer.alloc(44 + dataBytes);
  file.write("RIFF", 0, "ascii");
  file.writeUInt32LE(36 + dataBytes, 4);
  file.write("WAVEfmt ", 8, "ascii");
  file.writeUInt32LE(16, 16); // fmt chunk size
  file.writeUInt16LE(1, 20); // PCM
  file.writeUInt16LE(1, 22); // mono
  file.writeUInt32LE(rate, 24);
  file.writeUInt32LE(rate * 2, 28); // bytes per second
  file.writeUInt16LE(2, 32); // bytes per frame
  file.writeUInt16LE(16, 34); // bits per sample
  file.write("data", 36, "ascii");
  file.writeUInt32LE(dataBytes, 40);
  return file;
}

/**
 * A WebM of `frames` frames of `width` x `height`, encoded by the browser's MediaRecorder
 * from a canvas in a blank page. Each frame is drawn on an animation frame and the recorder
 * is stopped after the last: the steps wait on the browser's events, never on a clock.
 */
export async function webm(
  browser: Browser,
  width: number,
  height: number,
  frames: number,
): Promise<Uint8Array> {
  const page = await browser.newPage();
  try {
    // In the page (a blank one, no policy); a string, as the tests' types have no DOM.
    const bytes = await page.evaluate<number[]>(`(async () => {
      const canvas = document.createElement("canvas");
      canvas.width = ${width};
      canvas.height = ${height};
      document.body.append(canvas);
      const context = canvas.getContext("2d");
      const recorder = new MediaRecorder(canvas.captureStream(), { mimeType: "video/webm" });
      const chunks = [];
      recorder.ondataavailable = (event) => chunks.push(event.data);
      const stopped = new Promise((resolve) => { recorder.onstop = resolve; });
      recorder.start();
      for (let frame = 0; frame < ${frames}; frame += 1) {
        context.fillStyle = frame % 2 === 0 ? "#c03030" : "#3030c0";
        context.fillRect(0, 0, ${width}, ${height});
        await new Promise((resolve) => requestAnimationFrame(resolve));
      }
      recorder.stop();
      await stopped;
      const buffer = await new Blob(chunks, { type: "video/webm" }).arrayBuffer();
      return Array.from(new Uint8Array(buffer));
    })()`);
    return Uint8Array.from(bytes);
  } finally {
    await page.close();
  }
}
