import http.server
import socketserver

HOST = "127.0.0.1"
PORT = 8765


class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")


if __name__ == "__main__":
    with socketserver.TCPServer((HOST, PORT), Handler) as httpd:
        print("serving on", PORT)
        httpd.serve_forever()
